package raftstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
)

// MemberOp is the kind of a MemberChange.
type MemberOp string

// The configuration changes a member may ask of the leader.
const (
	// OpAddVoter adds a new voting member.
	OpAddVoter MemberOp = "add-voter"
	// OpAddNonvoter adds a new member that receives the log but does not
	// vote (etcd's learner).
	OpAddNonvoter MemberOp = "add-nonvoter"
	// OpPromote makes a non-voter a voter.
	OpPromote MemberOp = "promote"
	// OpRemove removes a member.
	OpRemove MemberOp = "remove"
	// OpSetAddress changes a member's peer address, keeping its suffrage:
	// a node restarted on a new address asks for it.
	OpSetAddress MemberOp = "set-address"
)

// MemberChange is one change to the raft configuration.
type MemberChange struct {
	Op       MemberOp `json:"op"`
	Name     string   `json:"name"`
	PeerAddr string   `json:"peerAddr,omitempty"`
}

// rpcMembers carries a MemberChange to the leader.
const rpcMembers = "/raftstore/v1/members"

// ChangeMembers makes the change on the leader: here when this node leads,
// else through the leader's peer channel, else through any other member
// (which forwards it to the leader it knows). The last way lets a node
// whose configured address is stale, and which therefore hears from no
// leader, still reach one.
//
// The change is checked against the leader's configuration: adding an
// existing name is AlreadyExists, changing an unknown one NotFound,
// promoting a voter or removing the last voter Conflict.
func (s *Store) ChangeMembers(ctx context.Context, ch MemberChange) error {
	if err := ch.validate(); err != nil {
		return err
	}
	if s.IsLeader() {
		return s.changeLocal(ch)
	}
	body, _ := json.Marshal(ch)
	var lastErr error = &Error{Code: ErrCodeUnavailable, Msg: "no leader and no other member to ask", Err: errNotLeader}
	for _, addr := range s.changeTargets() {
		reply, _, err := s.peers.call(ctx, addr, rpcMembers, body)
		if err == nil {
			err = memberChangeError(reply.Err)
		} else {
			err = &Error{Code: ErrCodeUnavailable, Msg: "member " + addr + " unreachable", Err: err}
		}
		if err == nil || !IsUnavailable(err) {
			return err
		}
		lastErr = err
	}
	return lastErr
}

// changeTargets lists the peer addresses to ask for a configuration
// change: the known leader first, then every other member.
func (s *Store) changeTargets() []string {
	var out []string
	if addr, _ := s.raft.LeaderWithID(); addr != "" {
		out = append(out, string(addr))
	}
	members, _ := s.Members()
	for _, m := range members {
		if m.Name != s.cfg.Name && (len(out) == 0 || m.PeerAddr != out[0]) {
			out = append(out, m.PeerAddr)
		}
	}
	return out
}

// memberChangeError is the error a member answered, with its message as
// the leader wrote it.
func memberChangeError(w *wireError) error {
	if w == nil {
		return nil
	}
	e := &Error{Code: w.Code, Key: w.Key, Msg: w.Msg}
	if w.NotLeader {
		e.Err = errNotLeader
	}
	return e
}

func (ch MemberChange) validate() error {
	invalid := func(msg string) error { return &Error{Code: ErrCodeInvalid, Msg: msg} }
	switch {
	case ch.Name == "":
		return invalid("a member needs a name")
	case ch.Op == OpAddVoter || ch.Op == OpAddNonvoter || ch.Op == OpSetAddress:
		if ch.PeerAddr == "" {
			return invalid(fmt.Sprintf("%s %s needs a peer address", ch.Op, ch.Name))
		}
	case ch.Op == OpPromote || ch.Op == OpRemove:
	default:
		return invalid(fmt.Sprintf("unknown member change %q", ch.Op))
	}
	return nil
}

// changeLocal checks ch against this leader's configuration and applies
// it.
func (s *Store) changeLocal(ch MemberChange) error {
	members, err := s.Members()
	if err != nil {
		return err
	}
	cur, exists := Member{}, false
	voters := 0
	for _, m := range members {
		if m.Name == ch.Name {
			cur, exists = m, true
		}
		if m.Voter {
			voters++
		}
	}
	switch {
	case exists && (ch.Op == OpAddVoter || ch.Op == OpAddNonvoter):
		return &Error{Code: ErrCodeAlreadyExists, Key: ch.Name, Msg: fmt.Sprintf("member %q already exists (peer address %s)", ch.Name, cur.PeerAddr)}
	case !exists && ch.Op != OpAddVoter && ch.Op != OpAddNonvoter:
		return &Error{Code: ErrCodeNotFound, Key: ch.Name, Msg: fmt.Sprintf("member %q not found", ch.Name)}
	}
	switch ch.Op {
	case OpAddVoter:
		return s.AddVoter(ch.Name, ch.PeerAddr)
	case OpAddNonvoter:
		return s.AddNonvoter(ch.Name, ch.PeerAddr)
	case OpPromote:
		if cur.Voter {
			return &Error{Code: ErrCodeConflict, Key: ch.Name, Msg: fmt.Sprintf("member %q is already a voter", ch.Name)}
		}
		return s.AddVoter(ch.Name, cur.PeerAddr)
	case OpSetAddress:
		if cur.PeerAddr == ch.PeerAddr {
			return nil
		}
		if cur.Voter {
			return s.AddVoter(ch.Name, ch.PeerAddr)
		}
		return s.AddNonvoter(ch.Name, ch.PeerAddr)
	default: // OpRemove
		if cur.Voter && voters == 1 {
			return &Error{Code: ErrCodeConflict, Key: ch.Name, Msg: fmt.Sprintf("member %q is the only voter: removing it would leave no cluster", ch.Name)}
		}
		return s.RemoveMember(ch.Name)
	}
}

// serveMembers applies a MemberChange forwarded by another member. A
// follower passes it on to its leader once; it does not try the other
// members, so a request cannot circle.
func (s *Store) serveMembers(w http.ResponseWriter, r *http.Request) {
	var ch MemberChange
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRPCBody)).Decode(&ch); err != nil {
		writeReply(w, rpcReply{Err: toWire(&Error{Code: ErrCodeInvalid, Err: err})})
		return
	}
	if err := ch.validate(); err != nil {
		writeReply(w, rpcReply{Err: toWire(err)})
		return
	}
	if s.IsLeader() {
		writeReply(w, rpcReply{Err: toWire(s.changeLocal(ch))})
		return
	}
	addr, _ := s.raft.LeaderWithID()
	if addr == "" {
		writeReply(w, rpcReply{Err: toWire(&Error{Code: ErrCodeUnavailable, Msg: "no leader", Err: errNotLeader})})
		return
	}
	body, _ := json.Marshal(ch)
	reply, _, err := s.peers.call(r.Context(), string(addr), rpcMembers, body)
	if err != nil {
		reply.Err = toWire(&Error{Code: ErrCodeUnavailable, Msg: "leader unreachable", Err: err})
	}
	writeReply(w, rpcReply{Err: reply.Err})
}

// OwnAddressStale reports whether the raft configuration holds this node
// under another peer address than the one it advertises (it was restarted
// with a new --peer-listen or --peer-advertise), and the configured one.
// A configured host name that resolves to the advertised address is not
// stale, and neither is anything while the node advertises an unspecified
// address (0.0.0.0), which no other node could dial.
func (s *Store) OwnAddressStale() (configured string, stale bool) {
	adv, err := net.ResolveTCPAddr("tcp", s.advertise)
	if err != nil || adv.IP == nil || adv.IP.IsUnspecified() {
		return "", false
	}
	members, err := s.Members()
	if err != nil {
		return "", false
	}
	for _, m := range members {
		if m.Name != s.cfg.Name {
			continue
		}
		if m.PeerAddr == s.advertise {
			return m.PeerAddr, false
		}
		conf, err := net.ResolveTCPAddr("tcp", m.PeerAddr)
		return m.PeerAddr, err != nil || conf.Port != adv.Port || !conf.IP.Equal(adv.IP)
	}
	return "", false
}
