package failpoint

import (
	"context"
	"errors"
	"math/rand/v2"
)

// processFault does something to the picked nodes' processes and undoes
// it on recovery: kill -9 and restart, or SIGSTOP and SIGCONT.
type processFault struct {
	name     string
	restarts bool // kill and restart, not pause
	pick     picker
	do       func(c Cluster, name string) error
	undo     func(c Cluster, name string) error
	targets  []string
}

var _ Failpoint = (*processFault)(nil)

// KillRandom kills -9 one random node and restarts it on its data.
func KillRandom() Failpoint { return killFault("kill-random", randomNode) }

// KillLeader kills -9 the leader and restarts it on its data.
func KillLeader() Failpoint { return killFault("kill-leader", leaderNode) }

// KillMinority kills -9 the largest minority (1 of 3, 2 of 5) and
// restarts them on their data.
func KillMinority() Failpoint { return killFault("kill-minority", minority) }

// PauseRandom stops a random node with SIGSTOP and continues it with
// SIGCONT.
func PauseRandom() Failpoint { return pauseFault("pause-random", randomNode) }

// PauseLeader stops the leader with SIGSTOP and continues it with
// SIGCONT.
func PauseLeader() Failpoint { return pauseFault("pause-leader", leaderNode) }

func killFault(name string, p picker) *processFault {
	return &processFault{name: name, pick: p, restarts: true,
		do:   func(c Cluster, n string) error { return c.Kill(n) },
		undo: func(c Cluster, n string) error { return c.Restart(n) }}
}

func pauseFault(name string, p picker) *processFault {
	return &processFault{name: name, pick: p,
		do:   func(c Cluster, n string) error { return c.Pause(n) },
		undo: func(c Cluster, n string) error { return c.Resume(n) }}
}

func (f *processFault) Name() string        { return f.name }
func (f *processFault) Restarts() bool      { return f.restarts }
func (f *processFault) Available(int) error { return nil }

func (f *processFault) Inject(ctx context.Context, c Cluster, rnd *rand.Rand) ([]string, error) {
	targets, err := f.pick(ctx, c, rnd)
	if err != nil {
		return nil, err
	}
	f.targets = nil
	for _, t := range targets {
		if err := f.do(c, t); err != nil {
			return f.targets, err
		}
		f.targets = append(f.targets, t)
	}
	return f.targets, nil
}

func (f *processFault) Recover(_ context.Context, c Cluster) error {
	var errs []error
	for _, t := range f.targets {
		errs = append(errs, f.undo(c, t))
	}
	f.targets = nil
	return errors.Join(errs...)
}
