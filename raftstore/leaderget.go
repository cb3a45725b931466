package raftstore

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/hashicorp/raft"
)

// A NotOlderThan read of a revision this follower has not applied yet is
// usually a client's next step after a write it just made through this
// node: an update carrying the resourceVersion its last update returned.
// The leader applied that revision before it answered, but hashicorp/raft
// tells followers the new commit index only with its next AppendEntries,
// which an idle leader sends CommitTimeout later. Waiting for it would
// add that much to every such request; asking the leader for the key
// costs one round trip on a connection already open. Any node whose state
// has reached the revision serves a correct answer (the read is not a
// quorum read), so a leader that has just been deposed is still right.

// rpcGet reads one key on the leader, at a revision not older than asked.
const rpcGet = "/raftstore/v1/get"

// leaderGetTimeout bounds the round trip to the leader; after it the
// follower waits for its own state as it would without asking.
const leaderGetTimeout = time.Second

// getRequest is the body of rpcGet.
type getRequest struct {
	Key string `json:"key"`
	Rev uint64 `json:"rev"`
}

// getFromLeader answers a NotOlderThan read of key at rev from the
// leader's state. ok is false when the leader could not answer it (no
// leader, this node leads, the call failed, the leader has not applied
// rev yet): the caller then reads locally.
func (s *Store) getFromLeader(ctx context.Context, key string, rev uint64) (obj Object, ok bool, err error) {
	if s.raft.State() == raft.Leader {
		return Object{}, false, nil
	}
	addr, _ := s.raft.LeaderWithID()
	if addr == "" {
		return Object{}, false, nil
	}
	s.leaderGets.Add(1)
	body, err := json.Marshal(getRequest{Key: key, Rev: rev})
	if err != nil {
		return Object{}, false, nil
	}
	callCtx, cancel := context.WithTimeout(ctx, leaderGetTimeout)
	defer cancel()
	reply, _, err := s.peers.call(callCtx, string(addr), rpcGet, body)
	switch {
	case err != nil:
		return Object{}, false, nil
	case reply.Err == nil && reply.Rev != 0:
		return Object{Key: key, Rev: reply.Rev, Data: reply.Object}, true, nil
	case reply.Err != nil && reply.Err.Code == ErrCodeNotFound:
		return Object{}, true, &Error{Code: ErrCodeNotFound, Key: key, Rev: reply.Err.Rev}
	}
	return Object{}, false, nil
}

// serveGet answers rpcGet from this node's own state, without asking on.
// It waits for rev no longer than a follower waits for the answer.
func (s *Store) serveGet(w http.ResponseWriter, r *http.Request) {
	var req getRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRPCBody)).Decode(&req); err != nil || req.Rev == 0 {
		writeReply(w, rpcReply{Err: toWire(newError(ErrCodeBadRequest, "", "a get needs a key and a revision"))})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), leaderGetTimeout)
	defer cancel()
	obj, err := s.getLocal(ctx, req.Key, ReadOptions{Consistency: NotOlderThan, Revision: req.Rev})
	if err != nil {
		writeReply(w, rpcReply{Err: toWire(err)})
		return
	}
	writeReply(w, rpcReply{Rev: obj.Rev, Object: obj.Data})
}
