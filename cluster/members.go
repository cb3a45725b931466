package cluster

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/raftstore"
)

// Members implements api.MemberLister: the raft configuration joined with
// gossip addresses and each member's own status.
func (n *Node) Members(ctx context.Context) ([]api.Member, error) {
	conf, err := n.store.Members()
	if err != nil {
		return nil, err
	}
	apiAddrs := map[string]string{n.cfg.Name: n.advertisedAPIAddr()}
	if n.gossip != nil {
		for name, m := range n.gossip.snapshot() {
			apiAddrs[name] = m.meta.API
		}
	}
	self := n.store.Status()
	out := make([]api.Member, len(conf))
	var wg sync.WaitGroup
	for i, c := range conf {
		out[i] = api.Member{Name: c.Name, PeerAddress: c.PeerAddr, APIAddress: apiAddrs[c.Name], Suffrage: suffrage(c.Voter), Role: "Follower"}
		if c.Name == self.LeaderID {
			out[i].Role = "Leader"
		}
		wg.Add(1)
		go func(m *api.Member) {
			defer wg.Done()
			n.fillStatus(m)
		}(&out[i])
	}
	wg.Wait()
	return out, nil
}

func suffrage(voter bool) string {
	if voter {
		return "Voter"
	}
	return "Nonvoter"
}

// fillStatus asks the member, over the peer channel, for its applied
// index, last contact and API address; a member that does not answer is
// unhealthy.
func (n *Node) fillStatus(m *api.Member) {
	if m.Name == n.cfg.Name {
		setStatus(m, n.store.StatusWithDisk())
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	st, raw, err := n.store.PeerStatus(ctx, m.PeerAddress)
	if err != nil {
		return
	}
	var info nodeInfo
	if json.Unmarshal(raw, &info) == nil && info.API != "" {
		m.APIAddress = info.API
	}
	setStatus(m, st)
}

// setStatus copies what a member says of itself into m.
func setStatus(m *api.Member, st raftstore.Status) {
	m.AppliedIndex, m.LastContact, m.Healthy = st.AppliedIndex, st.LastContact, st.LeaderID != ""
	m.Term, m.Leader, m.DBSize = st.Term, st.LeaderID, st.StateBytes+st.LogBytes
}

// nodeInfo is what a node tells members that ask for its status.
type nodeInfo struct {
	API string `json:"api"`
}

// info is this node's nodeInfo, once its API listens.
func (n *Node) info() []byte {
	addr := n.apiAddr.Load()
	if addr == nil {
		return nil
	}
	b, _ := json.Marshal(nodeInfo{API: *addr})
	return b
}
