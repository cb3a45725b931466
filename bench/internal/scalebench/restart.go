package scalebench

import (
	"context"
	"time"
)

// Timeouts of the node lifecycle steps: generous, for big sizes on a
// small machine.
const (
	stopGrace    = time.Minute
	readyTimeout = 30 * time.Minute
)

// restart stops a follower (SIGTERM) and starts it again on its data
// directory: how long after the start it answers /readyz with 200, and
// its memory then.
func (r *run) restart(ctx context.Context, res *Results) error {
	n, err := r.c.Follower(ctx)
	if err != nil {
		return err
	}
	r.logf("restart: stopping %s", n.Name)
	r.c.Stop(n, stopGrace)
	ready, err := r.c.Restart(ctx, n, readyTimeout)
	if err != nil {
		return err
	}
	res.Restart = &Restart{Node: n.Name, Objects: r.cfg.RestartObjects, Ready: ready}
	r.logf("restart: %s holding %d objects ready %v after its start", n.Name, r.cfg.RestartObjects, ready.Round(time.Millisecond))
	m, err := r.memoryOf(ctx, n, "restarted")
	if err != nil {
		return err
	}
	res.Memory = append(res.Memory, m)
	return nil
}
