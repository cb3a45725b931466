package chaos

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/raftapi/raftapi/chaos/traffic"
)

// createDefinitions creates the CustomResourceDefinition of every custom
// resource the traffic uses, retrying through every node until the
// cluster accepts it, then waits until every node serves it: the traffic
// starts only then, so that a 404 for its path later is a node that lost
// and has not yet regained the definition (a restart, a wipe).
func (r *run) createDefinitions(ctx context.Context, c *traffic.Client) error {
	for _, res := range r.cfg.resources {
		if !res.Custom {
			continue
		}
		started := time.Now()
		if err := r.createDefinition(ctx, c, res); err != nil {
			return err
		}
		if err := r.waitServed(ctx, c, res, 60*time.Second); err != nil {
			return err
		}
		r.cfg.Log("%s served on every node %s after creating %s", res.Name, time.Since(started).Round(10*time.Millisecond), res.DefinitionName())
	}
	return nil
}

func (r *run) createDefinition(ctx context.Context, c *traffic.Client, res traffic.Resource) error {
	deadline := time.Now().Add(60 * time.Second)
	var err error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, n := range r.cl.Names() {
			if err = c.CreateDefinition(ctx, n, res); err == nil {
				return nil
			}
		}
		sleepUntil(ctx, time.Now().Add(500*time.Millisecond))
	}
	return fmt.Errorf("chaos: %w", err)
}

// waitServed waits until every node serves every custom resource the
// traffic uses, for at most timeout.
func (r *run) waitServed(ctx context.Context, c *traffic.Client, res traffic.Resource, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, n := range r.cl.Names() {
		for {
			err := c.Serves(ctx, n, res)
			if err == nil {
				break
			}
			if ctx.Err() != nil || time.Now().After(deadline) {
				return fmt.Errorf("chaos: %w (after %s)", err, timeout)
			}
			sleepUntil(ctx, time.Now().Add(200*time.Millisecond))
		}
	}
	return nil
}

// waitAllServed waits until every node serves every custom resource of
// the run again, after the faults.
func (r *run) waitAllServed(ctx context.Context, c *traffic.Client, timeout time.Duration) error {
	var errs []error
	for _, res := range r.cfg.resources {
		if res.Custom {
			errs = append(errs, r.waitServed(ctx, c, res, timeout))
		}
	}
	return errors.Join(errs...)
}
