package raftnodes

import (
	"context"
	"fmt"
	"time"

	"github.com/raftapi/raftapi/bench/internal/procs"
)

// WaitReady waits until node n answers /readyz with 200, and fails at
// once should its process exit.
func (c *Cluster) WaitReady(ctx context.Context, n *Node, timeout time.Duration) error {
	err := procs.Poll(ctx, timeout, func() error {
		if !n.proc.Running() {
			return procs.Stop{Err: n.exitedErr()}
		}
		return n.Client.Ready(ctx)
	})
	if err != nil {
		return fmt.Errorf("raftnodes: %s ready: %w", n.Name, err)
	}
	return nil
}
