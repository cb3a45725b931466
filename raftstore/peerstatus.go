package raftstore

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
)

// serveStatus answers a member's question about this node: its status and
// what the embedding program says of it (Config.NodeInfo).
func (s *Store) serveStatus(w http.ResponseWriter, _ *http.Request) {
	st := s.StatusWithDisk()
	reply := rpcReply{Status: &st}
	if s.cfg.NodeInfo != nil {
		if info := s.cfg.NodeInfo(); json.Valid(info) {
			reply.Info = info
		}
	}
	writeReply(w, reply)
}

// PeerStatus asks the member at peerAddr, over the authenticated peer
// channel, for its status and its node info (Config.NodeInfo; nil when it
// has none). It works without gossip, so every member of a static cluster
// knows every other's status.
func (s *Store) PeerStatus(ctx context.Context, peerAddr string) (Status, json.RawMessage, error) {
	reply, _, err := s.peers.call(ctx, peerAddr, rpcStatus, nil)
	if err != nil {
		return Status{}, nil, err
	}
	if reply.Err != nil {
		return Status{}, nil, fromWire(reply.Err)
	}
	if reply.Status == nil {
		return Status{}, nil, errors.New("raftstore: peer status: empty answer")
	}
	return *reply.Status, reply.Info, nil
}
