package raftnodes

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// WaitReady waits until node n answers /readyz with 200, and fails at
// once should its process exit.
func (c *Cluster) WaitReady(ctx context.Context, n *Node, timeout time.Duration) error {
	err := poll(ctx, timeout, func() error {
		if !n.proc.Running() {
			return stop{n.exitedErr()}
		}
		return c.readyz(ctx, n)
	})
	if err != nil {
		return fmt.Errorf("raftnodes: %s ready: %w", n.Name, err)
	}
	return nil
}

func (c *Cluster) readyz(ctx context.Context, n *Node) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	code, body, err := n.Client.Raw(ctx, http.MethodGet, "/readyz", nil)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("/readyz: %d %s", code, truncate(body, 300))
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
