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
// and has not yet regained the definition (a restart, a wipe). A
// resource served in several versions gets its ConversionPolicy too, and
// the traffic waits until every node converts between them (a node
// applies the policy a moment after the definition).
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
		if err := r.createPolicy(ctx, c, res); err != nil {
			return err
		}
		r.cfg.Log("%s served on every node %s after creating %s", res.Name, time.Since(started).Round(10*time.Millisecond), res.DefinitionName())
	}
	return nil
}

func (r *run) createDefinition(ctx context.Context, c *traffic.Client, res traffic.Resource) error {
	return r.onAnyNode(ctx, func(n string) error { return c.CreateDefinition(ctx, n, res) })
}

// createPolicy creates the ConversionPolicy of a resource served in
// several versions and waits until every node converts between them.
func (r *run) createPolicy(ctx context.Context, c *traffic.Client, res traffic.Resource) error {
	if res.Policy() == nil {
		return nil
	}
	if err := r.onAnyNode(ctx, func(n string) error { return c.CreatePolicy(ctx, n, res) }); err != nil {
		return err
	}
	return r.onEveryNode(ctx, 60*time.Second, func(n string) error { return c.Converts(ctx, n, res) })
}

// onAnyNode calls fn with each node in turn until it succeeds once,
// for at most a minute.
func (r *run) onAnyNode(ctx context.Context, fn func(node string) error) error {
	deadline := time.Now().Add(60 * time.Second)
	var err error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, n := range r.cl.Names() {
			if err = fn(n); err == nil {
				return nil
			}
		}
		sleepUntil(ctx, time.Now().Add(500*time.Millisecond))
	}
	return fmt.Errorf("chaos: %w", err)
}

// waitServed waits until every node serves res, in each of its
// versions, for at most timeout.
func (r *run) waitServed(ctx context.Context, c *traffic.Client, res traffic.Resource, timeout time.Duration) error {
	versions := []string{""}
	for _, v := range res.Versions {
		versions = append(versions, v.Name)
	}
	return r.onEveryNode(ctx, timeout, func(n string) error {
		for _, v := range versions {
			if err := c.Serves(ctx, n, res.In(v)); err != nil {
				return err
			}
		}
		return nil
	})
}

// onEveryNode calls fn with each node until it succeeds for each, for at
// most timeout.
func (r *run) onEveryNode(ctx context.Context, timeout time.Duration, fn func(node string) error) error {
	deadline := time.Now().Add(timeout)
	for _, n := range r.cl.Names() {
		for {
			err := fn(n)
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
// the run again, after the faults, converting between its versions.
func (r *run) waitAllServed(ctx context.Context, c *traffic.Client, timeout time.Duration) error {
	var errs []error
	for _, res := range r.cfg.resources {
		if !res.Custom {
			continue
		}
		err := r.waitServed(ctx, c, res, timeout)
		if err == nil && res.Policy() != nil {
			err = r.onEveryNode(ctx, timeout, func(n string) error { return c.Converts(ctx, n, res) })
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
