package raftnodes

import (
	"context"
	"fmt"
	"time"

	"github.com/raftapi/raftapi/bench/internal/procs"
)

// Stop stops node n's process (SIGTERM, then SIGKILL after grace) and
// waits for the exit.
func (c *Cluster) Stop(n *Node, grace time.Duration) {
	if n.proc != nil {
		n.proc.Stop(grace)
	}
}

// Restart starts stopped node n again on its data directory and returns
// how long after the start it first answered /readyz with 200.
func (c *Cluster) Restart(ctx context.Context, n *Node, timeout time.Duration) (time.Duration, error) {
	if n.proc != nil && n.proc.Running() {
		return 0, fmt.Errorf("raftnodes: restart %s: still running", n.Name)
	}
	if err := c.spawn(n); err != nil {
		return 0, err
	}
	if err := c.WaitReady(ctx, n, timeout); err != nil {
		return 0, err
	}
	return time.Since(n.proc.Started()), nil
}

// Memory returns node n's resident memory.
func (c *Cluster) Memory(n *Node) (procs.Memory, error) {
	if n.proc == nil || !n.proc.Running() {
		return procs.Memory{}, fmt.Errorf("raftnodes: %s is not running", n.Name)
	}
	return n.proc.Memory()
}
