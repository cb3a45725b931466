package raftnodes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/raftapi/raftapi/bench/internal/kubeapi"
)

// addMemberRequest is the body of POST /raftapi/v1/members.
type addMemberRequest struct {
	Name        string `json:"name"`
	PeerAddress string `json:"peerAddress"`
	Learner     bool   `json:"learner,omitempty"`
}

// AddLearner adds a new node to the cluster as a learner (raftapi members
// add --learner, through any node's API) and starts it with the whole
// --initial-cluster and --initial-cluster-state existing, as README's
// "Changing the members" does. It returns the node, started; the leader
// brings it up to date.
func (c *Cluster) AddLearner(ctx context.Context, name string) (*Node, error) {
	n, err := newNode(name, c.cfg.Dir)
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(addMemberRequest{Name: n.Name, PeerAddress: n.Peer, Learner: true})
	rctx, cancel := context.WithTimeout(ctx, 60*time.Second) // raftapi members add's own bound
	defer cancel()
	code, out, err := c.Nodes[0].Client.Raw(rctx, http.MethodPost, "/raftapi/v1/members", body)
	if err != nil {
		return nil, fmt.Errorf("raftnodes: add %s: %w", name, err)
	}
	if code/100 != 2 {
		return nil, fmt.Errorf("raftnodes: add %s: %d %s", name, code, truncate(out, 300))
	}
	var initial []string
	for _, m := range append(c.Nodes, n) {
		initial = append(initial, m.Name+"="+m.Peer)
	}
	n.Client = kubeapi.New(n.URL(), c.Transport)
	c.Nodes = append(c.Nodes, n)
	return n, c.spawn(n, "--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "existing")
}
