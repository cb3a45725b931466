package failpoint

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"golang.org/x/sys/unix"
)

var _ Failpoint = (*clock)(nil)

// clock steps the machine's wall clock and steps it back on recovery.
type clock struct {
	allowed bool
	jump    time.Duration
	stepped time.Duration // the jump in force, undone by Recover
}

// ClockJump steps the wall clock by up to ±max. Linux has no per-process
// or per-network-namespace wall clock (time namespaces offset only the
// monotonic and boot clocks, and only for processes started in them), so
// the jump hits the whole machine; it is available only when allowed is
// set, for machines dedicated to the run.
func ClockJump(allowed bool, max time.Duration) Failpoint {
	return &clock{allowed: allowed, jump: max}
}

func (c *clock) Name() string { return "clock" }

func (c *clock) Available(int) error {
	if !c.allowed {
		return errors.New("clock jumps step the whole machine's wall clock (no per-namespace wall clock on Linux); pass --clock-jumps on a dedicated machine")
	}
	return nil
}

func (c *clock) Inject(_ context.Context, cl Cluster, rnd *rand.Rand) ([]string, error) {
	d := time.Duration(rnd.Int64N(int64(2*c.jump))) - c.jump
	if err := step(d); err != nil {
		return nil, err
	}
	c.stepped = d
	return cl.Names(), nil
}

func (c *clock) Recover(context.Context, Cluster) error {
	d := c.stepped
	c.stepped = 0
	return step(-d)
}

func step(d time.Duration) error {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME, &ts); err != nil {
		return err
	}
	ts = unix.NsecToTimespec(ts.Nano() + int64(d))
	return unix.ClockSettime(unix.CLOCK_REALTIME, &ts)
}
