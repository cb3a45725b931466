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
	rpcApplyMany = "/raftstore/v1/applymany"
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
	mux.HandleFunc("POST "+rpcApplyMany, s.serveApplyMany)
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
	writeReply(w, applyReply(cmd.Type, res, err, r.URL.RawQuery == omitStamped))
}

// applyReply is the peer-protocol answer to a command of type t that the
// leader proposed with result res or error err. omit leaves out the
// object of a create or update (omitStamped).
func applyReply(t fsm.CommandType, res *fsm.Result, err error, omit bool) rpcReply {
	if err != nil {
		return rpcReply{Err: toWire(err)}
	}
	reply := rpcReply{Rev: res.Rev, Object: res.Object}
	switch {
	case res.Err != nil:
		reply.Err = toWire(fromRejection(res.Err))
	case stampsObject(t) && omit:
		reply.Object = nil
	}
	return reply
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

// errNoRoute is a peer's answer 404 to an RPC path it does not serve: a
// node of an earlier release. Nothing was done with the request.
var errNoRoute = errors.New("peer does not serve the path")

// call posts body to path on addr. sent reports whether the request was
// written to the connection: an error with sent == false means the peer
// never saw the request.
func (c *peerClient) call(ctx context.Context, addr, path string, body []byte) (reply rpcReply, sent bool, err error) {
	sent, err = c.callInto(ctx, addr, path, body, &reply)
	return reply, sent, err
}

// callInto is call with the reply decoded into reply, any JSON type. A
// 404 fails with errNoRoute.
func (c *peerClient) callInto(ctx context.Context, addr, path string, body []byte, reply any) (sent bool, err error) {
	trace := &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		if i.Err == nil {
			sent = true
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, "http://"+addr+path, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return sent, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return true, fmt.Errorf("peer %s: %s: %w", addr, path, errNoRoute)
	default:
		return true, fmt.Errorf("peer %s: HTTP %d", addr, resp.StatusCode)
	}
	in := io.LimitReader(resp.Body, maxRPCBody)
	if err := json.NewDecoder(in).Decode(reply); err != nil {
		return true, fmt.Errorf("peer %s: decode reply: %w", addr, err)
	}
	// Read to the end (the encoder's newline, a chunked body's last
	// chunk): a body closed before its end takes its connection with it,
	// and the next call pays a TLS handshake.
	_, _ = io.Copy(io.Discard, in)
	return true, nil
}
