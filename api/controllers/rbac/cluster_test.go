package rbac_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// TestPolicyOnThreeNodes: every node of a 3-node cluster runs the
// controllers; the leader installs the policy, and each follower reports
// it ready once it has applied it.
func TestPolicyOnThreeNodes(t *testing.T) {
	c := storetest.NewCluster(t, 3)
	c.WaitForLeader()
	var servers []*api.Server
	for i, node := range c.Nodes {
		logger := slog.New(slog.NewTextHandler(testWriter{t, node.Name}, nil))
		srv := api.NewServer(c.Nodes[i].Store, api.Options{BootstrapRBAC: true, Logger: logger})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			srv.Run(ctx)
		}()
		t.Cleanup(func() {
			cancel()
			<-done
		})
		servers = append(servers, srv)
	}
	deadline := time.Now().Add(30 * time.Second)
	for i, srv := range servers {
		for srv.RBACBootstrapReady() != nil {
			if time.Now().After(deadline) {
				t.Fatalf("node %d: %v", i, srv.RBACBootstrapReady())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

type testWriter struct {
	t    *testing.T
	node string
}

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(w.node + ": " + strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
