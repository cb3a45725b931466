package raftstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"time"

	"github.com/raftapi/raftapi/fsm"
)

// Peer RPC paths, served on protoRPC connections of the peer address.
const (
	rpcApply     = "/raftstore/v1/apply"
	rpcReadIndex = "/raftstore/v1/readindex"
	rpcStatus    = "/raftstore/v1/status"
	maxRPCBody   = 64 << 20
	// omitStamped, the query of an apply a follower forwards, asks the
	// leader to leave out of a committed create's or update's reply the
	// object it stored: that is the command's object stamped with the
	// reply's revision, which the follower stamps itself (see Store.write)
	// instead of receiving 1 KiB more, base64-encoded in JSON, per write.
	// A leader of an earlier release ignores the query and sends the
	// object, which the follower then takes as it comes.
	omitStamped = "omit=stamped"
)

// wireError is the peer-protocol form of an *Error.
type wireError struct {
	Code      ErrorCode `json:"code"`
	Key       string    `json:"key,omitempty"`
	Rev       uint64    `json:"rev,omitempty"`
	Msg       string    `json:"msg,omitempty"`
	NotLeader bool      `json:"notLeader,omitempty"`
}

// rpcReply is the body of every peer RPC response.
type rpcReply struct {
	Rev    uint64     `json:"rev,omitempty"`
	Object []byte     `json:"object,omitempty"`
	Index  uint64     `json:"index,omitempty"`
	Err    *wireError `json:"err,omitempty"`
	// Status and Info answer rpcStatus.
	Status *Status         `json:"status,omitempty"`
	Info   json.RawMessage `json:"info,omitempty"`
}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: ErrCodeUnavailable, Err: err}
	}
	msg := e.Msg
	if e.Err != nil && !errors.Is(e.Err, errNotLeader) {
		msg = e.Err.Error()
	}
	return &wireError{Code: e.Code, Key: e.Key, Rev: e.Rev, Msg: msg, NotLeader: errors.Is(err, errNotLeader)}
}

func fromWire(w *wireError) error {
	if w == nil {
		return nil
	}
	e := &Error{Code: w.Code, Key: w.Key, Rev: w.Rev, Msg: "from leader: " + w.Msg}
	if w.NotLeader {
		e.Err = errNotLeader
	}
	return e
}

// rpcHandler serves the peer RPC endpoints of s.
func (s *Store) rpcHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+rpcApply, s.serveApply)
	mux.HandleFunc("POST "+rpcReadIndex, s.serveReadIndex)
	mux.HandleFunc("POST "+rpcGet, s.serveGet)
	mux.HandleFunc("POST "+rpcStatus, s.serveStatus)
	mux.HandleFunc("POST "+rpcMembers, s.serveMembers)
	return mux
}

// serveApply applies a command forwarded by a follower. Only commands that
// decode are proposed, so nothing undecodable ever enters the log.
func (s *Store) serveApply(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxRPCBody))
	if err != nil {
		writeReply(w, rpcReply{Err: toWire(&Error{Code: ErrCodeUnavailable, Err: err})})
		return
	}
	cmd, err := fsm.DecodeCommand(data)
	if err != nil {
		writeReply(w, rpcReply{Err: toWire(&Error{Code: ErrCodeInvalid, Err: err})})
		return
	}
	res, err := s.applyLocal(r.Context(), data)
	if err != nil {
		writeReply(w, rpcReply{Err: toWire(err)})
		return
	}
	reply := rpcReply{Rev: res.Rev, Object: res.Object}
	switch {
	case res.Err != nil:
		reply.Err = toWire(fromRejection(res.Err))
	case stampsObject(cmd.Type) && r.URL.RawQuery == omitStamped:
		reply.Object = nil
	}
	writeReply(w, reply)
}

// stampsObject reports whether a command of type t stores its own object
// stamped with the revision it commits at, and answers with it.
func stampsObject(t fsm.CommandType) bool {
	return t == fsm.CmdCreate || t == fsm.CmdUpdate
}

func (s *Store) serveReadIndex(w http.ResponseWriter, r *http.Request) {
	idx, err := s.leaderReadIndex(r.Context())
	writeReply(w, rpcReply{Index: idx, Err: toWire(err)})
}

func writeReply(w http.ResponseWriter, reply rpcReply) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

// peerClient calls the peer RPC service of other nodes.
type peerClient struct {
	http *http.Client
}

func newPeerClient(dial func(string, time.Duration) (net.Conn, error), dialTimeout time.Duration) *peerClient {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			return dialPeer(dial, addr, protoRPC, dialTimeout)
		},
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
	return &peerClient{http: &http.Client{Transport: tr}}
}

func (c *peerClient) close() { c.http.CloseIdleConnections() }

// call posts body to path on addr. sent reports whether the request was
// written to the connection: an error with sent == false means the peer
// never saw the request.
func (c *peerClient) call(ctx context.Context, addr, path string, body []byte) (reply rpcReply, sent bool, err error) {
	trace := &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		if i.Err == nil {
			sent = true
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, "http://"+addr+path, bytes.NewReader(body))
	if err != nil {
		return reply, false, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return reply, sent, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return reply, true, fmt.Errorf("peer %s: HTTP %d", addr, resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxRPCBody)).Decode(&reply); err != nil {
		return reply, true, fmt.Errorf("peer %s: decode reply: %w", addr, err)
	}
	return reply, true, nil
}
