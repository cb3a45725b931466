package cluster

import (
	"context"
	"time"

	"github.com/raftapi/raftapi/raftstore"
)

// addressRetry is how often a static node whose configured peer address
// is stale asks again for it to be changed.
const addressRetry = time.Second

// keepAddressCurrent runs on a static node (a gossip node's address is
// kept current by the leader's reconciler). When the raft configuration
// holds this node under another peer address than the one it advertises,
// the node was restarted with a new --peer-listen or --peer-advertise:
// the leader still sends to the old address, so the node asks for the
// change itself, through whichever member answers, until it is made.
func (n *Node) keepAddressCurrent() {
	defer n.wg.Done()
	t := time.NewTicker(addressRetry)
	defer t.Stop()
	for {
		old, stale := n.store.OwnAddressStale()
		if stale {
			n.requestAddress(old)
		} else if n.store.HasState() {
			return
		}
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
	}
}

// requestAddress asks the leader to record this node's advertised peer
// address in place of old.
func (n *Node) requestAddress(old string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addr := n.store.PeerAddr()
	err := n.store.ChangeMembers(ctx, raftstore.MemberChange{Op: raftstore.OpSetAddress, Name: n.cfg.Name, PeerAddr: addr})
	if err != nil {
		n.cfg.Logger.Info("peer address changed: asking the leader to record it", "old", old, "new", addr, "err", err)
		return
	}
	n.cfg.Logger.Info("peer address changed: recorded in the cluster's configuration", "old", old, "new", addr)
}
