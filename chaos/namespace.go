package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/raftapi/raftapi/chaos/traffic"
)

// createNamespace creates the namespace the traffic uses, retrying until
// the cluster accepts it.
func (r *run) createNamespace(ctx context.Context, c *traffic.Client) error {
	deadline := time.Now().Add(60 * time.Second)
	var err error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, n := range r.cl.Names() {
			if err = c.CreateNamespace(ctx, n); err == nil {
				return nil
			}
		}
		sleepUntil(ctx, time.Now().Add(500*time.Millisecond))
	}
	return fmt.Errorf("chaos: create namespace %s: %w", namespace, err)
}
