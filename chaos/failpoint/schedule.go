package failpoint

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

// Healer waits until the cluster is whole again after a fault.
type Healer interface {
	WaitHealthy(ctx context.Context) error
}

// Schedule injects failpoints one at a time: a pause, a random failpoint
// held for a while, recovery, a wait until the cluster is healthy, and
// again, until the deadline.
type Schedule struct {
	Failpoints []Failpoint
	Cluster    Cluster
	Healer     Healer
	Recorder   *history.Recorder
	Rand       *rand.Rand
	// Between and Hold bound the random wait before a fault and how long
	// it lasts; HealTimeout bounds the wait for health after one.
	Between, Hold [2]time.Duration
	HealTimeout   time.Duration
	// Log receives one line per fault.
	Log func(format string, args ...any)
}

// Run runs the schedule until deadline (no fault starts after it, the one
// in force is healed) or ctx ends. It returns an error when the cluster
// did not heal after a fault.
func (s *Schedule) Run(ctx context.Context, deadline time.Time) error {
	for {
		wait := s.between(s.Between)
		if time.Until(deadline) < wait+s.Hold[0] {
			return nil
		}
		if !sleep(ctx, wait) {
			return nil
		}
		fp := s.Failpoints[s.Rand.IntN(len(s.Failpoints))]
		hold := min(s.between(s.Hold), time.Until(deadline))
		if err := s.one(ctx, fp, hold); err != nil {
			return err
		}
	}
}

// one injects fp, holds it, recovers and waits for health.
func (s *Schedule) one(ctx context.Context, fp Failpoint, hold time.Duration) error {
	f := history.Fault{Name: fp.Name(), Start: s.Recorder.Now(), Restarts: restarts(fp)}
	targets, err := fp.Inject(ctx, s.Cluster, s.Rand)
	f.Targets = targets
	if err != nil {
		f.Error = "inject: " + err.Error()
	} else {
		sleep(ctx, hold)
	}
	// Recovery must run even when the run is being cancelled.
	if rerr := fp.Recover(context.WithoutCancel(ctx), s.Cluster); rerr != nil {
		f.Error += " recover: " + rerr.Error()
	}
	f.End = s.Recorder.Now()
	s.Recorder.Fault(f)
	s.Log("fault %s on %v for %s%s", f.Name, f.Targets, time.Duration(f.End-f.Start).Round(time.Millisecond), errNote(f.Error))
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.HealTimeout)
	defer cancel()
	if err := s.Healer.WaitHealthy(hctx); err != nil {
		return fmt.Errorf("failpoint: after %s on %v: %w", f.Name, f.Targets, err)
	}
	return nil
}

func errNote(e string) string {
	if e == "" {
		return ""
	}
	return " (" + e + ")"
}

func (s *Schedule) between(b [2]time.Duration) time.Duration {
	if b[1] <= b[0] {
		return b[0]
	}
	return b[0] + time.Duration(s.Rand.Int64N(int64(b[1]-b[0])))
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
