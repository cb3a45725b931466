package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/raftapi/raftapi/raftstore"
)

// startGossip joins the gossip pool and runs the membership loop.
func (n *Node) startGossip() error {
	g, err := startGossip(gossipConfig{
		name: n.cfg.Name, listen: n.cfg.GossipListen, advertise: n.cfg.GossipAdvertise,
		key: n.cfg.GossipKey, meta: n.localMeta(), logger: n.cfg.Logger.With("logger", "gossip"),
	})
	if err != nil {
		return err
	}
	n.gossip = g
	n.gossipReady.Store(g)
	n.wg.Add(1)
	go n.membershipLoop()
	return nil
}

// gossipVouches reports whether name is an alive gossip member: gossip is
// authenticated with the cluster's key, so such a node may be a member
// this node's raft configuration does not list yet.
func (n *Node) gossipVouches(name string) bool {
	g := n.gossipReady.Load()
	if g == nil {
		return false
	}
	return g.alive(name)
}

func (n *Node) localMeta() nodeMeta {
	return nodeMeta{Peer: n.store.PeerAddr(), API: n.advertisedAPIAddr(), Voter: true, State: n.store.HasState()}
}

// membershipLoop keeps this node's gossip metadata current, joins the pool,
// bootstraps a new cluster when the expected nodes see each other, and, on
// the leader, reconciles raft membership with gossip.
func (n *Node) membershipLoop() {
	defer n.wg.Done()
	t := time.NewTicker(n.cfg.ReconcileInterval)
	defer t.Stop()
	r := &reconciler{node: n, deadSince: map[string]time.Time{}, lostSince: map[string]time.Time{}}
	for {
		// A leaving node must not announce itself again: any metadata
		// update would revive it as alive in everyone's gossip table.
		if !n.leaving.Load() {
			n.gossip.setMeta(n.localMeta())
			n.tryJoin()
			switch {
			case !n.store.HasState():
				n.maybeBootstrap()
			case n.store.IsLeader():
				r.reconcile()
			}
		}
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
	}
}

// tryJoin contacts every --join address that is not a live member yet.
// Joining one of them is not enough: nodes that start out of order can form
// separate pools (say {n1} and {n2, n3}) that would never merge, and no pool
// would ever see --bootstrap-expect nodes.
//
// A node not yet in a raft cluster pushes its state to every --join
// address each round: a node replaced under the same name with a new
// address is refused by the others until they have declared the old one
// dead, and would otherwise only be retried at memberlist's next
// push/pull, up to 30 seconds later.
func (n *Node) tryJoin() {
	missing := n.gossip.absent(n.cfg.Join)
	if !n.store.HasState() {
		missing = n.cfg.Join
	}
	if len(missing) == 0 {
		return
	}
	if err := n.gossip.join(missing); err != nil {
		n.cfg.Logger.Debug("gossip join", "addrs", missing, "err", err)
	}
}

// maybeBootstrap forms a new cluster once BootstrapExpect voters without
// raft state see each other and none already belongs to a cluster. Every
// node picks the same members (the first names in order), so exactly one
// cluster forms; nodes beyond them are added later by its leader.
func (n *Node) maybeBootstrap() {
	if n.cfg.BootstrapExpect == 0 {
		return
	}
	var names []string
	peers := map[string]string{}
	for name, m := range n.gossip.snapshot() {
		if m.state != memberAlive || !m.meta.Voter {
			continue
		}
		if m.meta.State {
			return // a cluster exists: wait for its leader to add us
		}
		names = append(names, name)
		peers[name] = m.meta.Peer
	}
	if len(names) < n.cfg.BootstrapExpect {
		return
	}
	sort.Strings(names)
	chosen := map[string]string{}
	for _, name := range names[:n.cfg.BootstrapExpect] {
		chosen[name] = peers[name]
	}
	if _, ok := chosen[n.cfg.Name]; !ok {
		return
	}
	n.cfg.Logger.Info("bootstrapping cluster", "voters", chosen)
	if err := n.store.Bootstrap(chosen); err != nil {
		n.cfg.Logger.Warn("bootstrap", "err", err)
	}
}

// reconciler is the leader's membership controller.
type reconciler struct {
	node      *Node
	deadSince map[string]time.Time // members missing or dead, since when
	// lostSince: voters whose gossip says they hold no raft state, since
	// when. Right after a bootstrap a voter's gossip still says so until
	// its next metadata update spreads; only a claim that lasts
	// lostDataGrace is believed.
	lostSince map[string]time.Time
}

// lostDataGrace is how long a voter must keep gossiping that it has no
// raft state before the leader takes it for wiped: a few metadata updates.
func (r *reconciler) lostDataGrace() time.Duration { return 3 * r.node.cfg.ReconcileInterval }

// lostData reports whether voter name has claimed to hold no raft state
// (stateless) for at least lostDataGrace as of now.
func (r *reconciler) lostData(name string, stateless bool, now time.Time) bool {
	if !stateless {
		delete(r.lostSince, name)
		return false
	}
	since, seen := r.lostSince[name]
	if !seen {
		r.lostSince[name] = now
		return false
	}
	return now.Sub(since) >= r.lostDataGrace()
}

func (r *reconciler) reconcile() {
	conf, err := r.node.store.Members()
	if err != nil {
		return
	}
	gm := r.node.gossip.snapshot()
	inConf := map[string]raftstore.Member{}
	for _, m := range conf {
		inConf[m.Name] = m
	}
	for name, m := range gm {
		if m.state == memberAlive && m.meta.Voter && !m.meta.Leaving && name != r.node.cfg.Name {
			r.admit(name, m, inConf)
		}
	}
	for _, m := range conf {
		if m.Name != r.node.cfg.Name {
			r.evict(m, gm, conf)
		}
	}
}

// admit brings an alive gossip member into raft: added as a non-voter,
// promoted once caught up, its address updated when it moved, and
// re-added from scratch when it lost its data.
func (r *reconciler) admit(name string, m gossipMember, inConf map[string]raftstore.Member) {
	s := r.node.store
	c, ok := inConf[name]
	var err error
	switch {
	case !ok:
		err = s.AddNonvoter(name, m.meta.Peer)
	case c.PeerAddr != m.meta.Peer && c.Voter:
		err = s.AddVoter(name, m.meta.Peer)
	case c.PeerAddr != m.meta.Peer:
		err = s.AddNonvoter(name, m.meta.Peer)
	case c.Voter && r.lostData(name, !m.meta.State, time.Now()):
		r.node.cfg.Logger.Info("voter lost its data; re-adding it", "member", name)
		delete(r.lostSince, name)
		err = s.RemoveMember(name)
	case !c.Voter && m.meta.State && r.caughtUp(m):
		err = s.AddVoter(name, m.meta.Peer)
	}
	if err != nil {
		r.node.cfg.Logger.Warn("membership change", "member", name, "err", err)
	}
}

// evict removes a member that left, or that stayed dead past the timeout
// while its removal keeps quorum and the configured size.
func (r *reconciler) evict(c raftstore.Member, gm map[string]gossipMember, conf []raftstore.Member) {
	m, ok := gm[c.Name]
	if ok && m.meta.Leaving {
		r.remove(c.Name)
		return
	}
	if ok && m.state == memberAlive {
		delete(r.deadSince, c.Name)
		return
	}
	since, seen := r.deadSince[c.Name]
	if !seen {
		r.deadSince[c.Name] = time.Now()
		return
	}
	if time.Since(since) >= r.node.cfg.DeadNodeTimeout && r.canRemove(c, gm, conf) {
		r.node.cfg.Logger.Info("removing dead member", "member", c.Name, "dead for", time.Since(since))
		r.remove(c.Name)
	}
}

func (r *reconciler) remove(name string) {
	if err := r.node.store.RemoveMember(name); err != nil {
		r.node.cfg.Logger.Warn("remove member", "member", name, "err", err)
		return
	}
	delete(r.deadSince, name)
}

// canRemove: a non-voter always; a voter only if the cluster stays at
// least its configured size and the voters still alive are a quorum of
// the configuration without it.
func (r *reconciler) canRemove(c raftstore.Member, gm map[string]gossipMember, conf []raftstore.Member) bool {
	if !c.Voter {
		return true
	}
	voters, alive := 0, 0
	for _, m := range conf {
		if !m.Voter || m.Name == c.Name {
			continue
		}
		voters++
		if g, ok := gm[m.Name]; m.Name == r.node.cfg.Name || (ok && g.state == memberAlive) {
			alive++
		}
	}
	return voters >= r.node.cfg.minVoters() && alive >= voters/2+1
}

// caughtUp reports whether a non-voter has applied close to the leader.
func (r *reconciler) caughtUp(m gossipMember) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, _, err := r.node.store.PeerStatus(ctx, m.meta.Peer)
	if err != nil {
		return false
	}
	return st.AppliedIndex+promotionLag >= r.node.store.Revision()
}

// promotionLag is how many entries behind the leader a non-voter may be
// when it is promoted.
const promotionLag = 64

func (n *Node) getJSON(apiAddr, path string, out any) error {
	return n.getJSONTimeout(apiAddr, path, 2*time.Second, out)
}

// getJSONTimeout GETs path from another node's API, as this node, and
// decodes the answer.
func (n *Node) getJSONTimeout(apiAddr, path string, timeout time.Duration, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.api.scheme()+"://"+apiAddr+path, nil)
	if err != nil {
		return err
	}
	resp, err := n.api.nodeClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("cluster: GET %s from %s: HTTP %d", path, apiAddr, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
