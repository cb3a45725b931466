package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/raftapi/raftapi/api/handlers"
	"github.com/raftapi/raftapi/raftstore"
)

// LeavePath asks a node (POST) to leave the cluster and stop.
const LeavePath = "/raftapi/v1/leave"

// Leave removes this node from the cluster gracefully: it announces by
// gossip that it is leaving, hands leadership over if it leads, waits until
// the leader has removed it from the raft configuration (or ctx ends), and
// only then leaves the gossip pool. Leaving the pool first could let the
// leader learn of the departure before the announcement and take the node
// for dead. The node keeps running; call Stop afterwards.
//
// A node of a static cluster hands leadership over if it leads and asks
// the leader to remove it; the removal is committed when Leave returns.
func (n *Node) Leave(ctx context.Context) error {
	if n.gossip == nil {
		return n.leaveStatic(ctx)
	}
	n.leaving.Store(true)
	meta := n.localMeta()
	meta.Leaving = true
	n.gossip.setMeta(meta)
	if n.store.IsLeader() && n.voters() > 1 {
		if err := n.store.TransferLeadership(); err != nil {
			n.cfg.Logger.Warn("leadership transfer before leaving", "err", err)
		}
	}
	err := n.waitRemoved(ctx)
	if errors.Is(err, ErrAllLeaving) || errors.Is(err, errLeaderless) {
		n.leaveGossipUnremoved()
	}
	if err != nil {
		return err
	}
	return n.gossip.leave(5 * time.Second)
}

// leaveGossipUnremoved leaves the gossip pool when no one will remove this
// node from raft (the whole cluster is stopping, or it has no leader).
// Only stopping would have the others take it for dead seconds later,
// after gossip's failure detection; those still waiting for every other
// member to announce its leave (othersLeaving) would wait that long,
// typically when this node's Leaving metadata did not reach them. Gossip
// tells them at once of a node that leaves. The others record a node that
// left gossip as dead, as they would this node once stopped, so their
// reconcilers see nothing else, only sooner.
func (n *Node) leaveGossipUnremoved() {
	if err := n.gossip.leave(unremovedLeaveTimeout); err != nil {
		n.cfg.Logger.Debug("gossip leave", "err", err)
	}
}

// unremovedLeaveTimeout bounds leaveGossipUnremoved's wait for its
// announcement to go out: the node stops anyway.
const unremovedLeaveTimeout = 500 * time.Millisecond

// leaveStatic removes this node of a static cluster through its leader,
// retrying while leadership moves (as it does right after a transfer).
func (n *Node) leaveStatic(ctx context.Context) error {
	n.leaving.Store(true)
	if n.store.IsLeader() && n.voters() > 1 {
		if err := n.store.TransferLeadership(); err != nil {
			n.cfg.Logger.Warn("leadership transfer before leaving", "err", err)
		}
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		err := n.store.ChangeMembers(ctx, raftstore.MemberChange{Op: raftstore.OpRemove, Name: n.cfg.Name})
		if err == nil || !raftstore.IsUnavailable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: leave: %w (last: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

// waitRemoved polls until the leader's configuration no longer holds this
// node. It remembers the last leader it knew: once removed, this node
// hears from no leader and may start elections of its own, and the leader
// that removed it is still the one to ask.
//
// A node that has known no leader for leaderlessGrace gives up: the
// cluster has lost its quorum (typically because all of it is stopping at
// once) and nothing can remove the node.
func (n *Node) waitRemoved(ctx context.Context) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	var lastLeader string
	leaderSeen := time.Now()
	for !n.removedByLeader(&lastLeader) {
		if n.store.Status().LeaderID != "" {
			leaderSeen = time.Now()
		} else if time.Since(leaderSeen) > leaderlessGrace {
			return errLeaderless
		}
		if n.othersLeaving() {
			return ErrAllLeaving
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// leaderlessGrace is how long a leaving node waits without a leader: a
// few election timeouts.
const leaderlessGrace = 3 * time.Second

// ErrAllLeaving ends a leave when every other live voter is leaving too:
// the whole cluster is stopping, and no member would stay to remove the
// others.
var ErrAllLeaving = errors.New("cluster: leave: every other member is leaving too; stopping without removal")

// othersLeaving reports whether every other live voter announces that it
// is leaving.
func (n *Node) othersLeaving() bool {
	for name, m := range n.gossip.snapshot() {
		if name != n.cfg.Name && m.state == memberAlive && m.meta.Voter && !m.meta.Leaving {
			return false
		}
	}
	return true
}

// errLeaderless ends a leave that no leader can complete.
var errLeaderless = errors.New("cluster: leave: no leader to remove this node (has the cluster lost its quorum?)")

func (n *Node) voters() int {
	conf, _ := n.store.Members()
	v := 0
	for _, m := range conf {
		if m.Voter {
			v++
		}
	}
	return v
}

// removedByLeader reports whether the leader's configuration no longer
// holds this node. The node's own configuration may never learn it: the
// leader stops replicating to a removed server. lastLeader is the last
// other node known to lead, asked when this node knows no leader now.
func (n *Node) removedByLeader(lastLeader *string) bool {
	if n.voters() <= 1 && !n.store.IsLeader() {
		return true
	}
	leader := n.store.Status().LeaderID
	switch leader {
	case n.cfg.Name:
		return false
	case "":
		leader = *lastLeader
	default:
		*lastLeader = leader
	}
	if leader == "" {
		return false
	}
	m, ok := n.gossip.snapshot()[leader]
	if !ok {
		return false
	}
	var l struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := n.getJSON(m.meta.API, "/apis/raftapi.io/v1/members", &l); err != nil {
		return false
	}
	for _, it := range l.Items {
		if it.Metadata.Name == n.cfg.Name {
			return false
		}
	}
	return true
}

// leaveHandler serves LeavePath: it leaves, answers, then ends the node
// (Done receives nil).
func (n *Node) leaveHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		if err := n.Leave(ctx); err != nil {
			handlers.WriteStatus(w, memberStatusError(err, n.cfg.Name))
			return
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("left\n"))
		n.exit(nil)
	})
}
