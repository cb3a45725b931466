package raftstore

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/hashicorp/raft"
	"github.com/raftapi/raftapi/fsm"
)

// manyReply is the body of the answer to rpcApplyMany: one reply per
// command, in the order they came, each as rpcApply would have answered it
// with omitStamped; or Err alone when the request could not be read, and
// then no command was proposed.
type manyReply struct {
	Replies []rpcReply `json:"replies,omitempty"`
	Err     *wireError `json:"err,omitempty"`
}

// encodeCommands frames the commands of batch as rpcApplyMany's body: each
// command's length as a uvarint, then its bytes.
func encodeCommands(batch []*forwardCall) []byte {
	size := 0
	for _, c := range batch {
		size += binary.MaxVarintLen64 + len(c.data)
	}
	body := make([]byte, 0, size)
	for _, c := range batch {
		body = binary.AppendUvarint(body, uint64(len(c.data)))
		body = append(body, c.data...)
	}
	return body
}

// splitCommands is encodeCommands' inverse. The commands alias body.
func splitCommands(body []byte) ([][]byte, error) {
	var cmds [][]byte
	for len(body) > 0 {
		n, w := binary.Uvarint(body)
		if w <= 0 || n > uint64(len(body)-w) {
			return nil, fmt.Errorf("forwarded command %d: bad length", len(cmds))
		}
		body = body[w:]
		cmds = append(cmds, body[:n:n])
		body = body[n:]
	}
	return cmds, nil
}

// serveApplyMany proposes the commands a follower forwards together (see
// forwarder) and answers each one.
func (s *Store) serveApplyMany(w http.ResponseWriter, r *http.Request) {
	if s.withoutApplyMany.Load() {
		http.NotFound(w, r)
		return
	}
	reply, ok := s.answerMany(r)
	if !ok {
		return // the follower is gone
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

// answerMany reads, splits and applies the commands of r; ok is false
// when r ended before they all had an outcome.
func (s *Store) answerMany(r *http.Request) (reply manyReply, ok bool) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxRPCBody))
	if err != nil {
		return manyReply{Err: toWire(&Error{Code: ErrCodeUnavailable, Err: err})}, true
	}
	cmds, err := splitCommands(data)
	if err != nil {
		return manyReply{Err: toWire(&Error{Code: ErrCodeInvalid, Err: err})}, true
	}
	reply.Replies = s.applyMany(r, cmds)
	return reply, reply.Replies != nil
}

// applyMany proposes each command that decodes, in order, and waits for
// all of them. It returns nil if the request ends first.
func (s *Store) applyMany(r *http.Request, cmds [][]byte) []rpcReply {
	replies := make([]rpcReply, len(cmds))
	types := make([]fsm.CommandType, len(cmds))
	futures := make([]raft.ApplyFuture, len(cmds))
	for i, data := range cmds {
		cmd, err := fsm.DecodeCommand(data)
		if err != nil {
			replies[i] = rpcReply{Err: toWire(&Error{Code: ErrCodeInvalid, Err: err})}
			continue
		}
		types[i] = cmd.Type
		futures[i] = s.raft.Apply(data, s.cfg.ApplyTimeout)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, f := range futures {
			if f != nil {
				_ = f.Error()
			}
		}
	}()
	select {
	case <-done:
	case <-r.Context().Done():
		return nil
	}
	for i, f := range futures {
		if f != nil {
			res, err := applyResult(f)
			replies[i] = applyReply(types[i], res, err, true)
		}
	}
	return replies
}

// applyResult is the outcome of a completed apply future.
func applyResult(f raft.ApplyFuture) (*fsm.Result, error) {
	if err := f.Error(); err != nil {
		return nil, classifyApplyError(err)
	}
	res, ok := f.Response().(*fsm.Result)
	if !ok || res == nil {
		return nil, &Error{Code: ErrCodeUnknownOutcome, Msg: "no result from the state machine"}
	}
	return res, nil
}
