package procs

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Stop wraps an error that ends a Poll at once.
type Stop struct{ Err error }

func (s Stop) Error() string { return s.Err.Error() }

// pollInterval is how often a condition is tried again.
const pollInterval = 20 * time.Millisecond

// Poll calls cond until it returns nil, returns a Stop error, ctx ends or
// timeout passes; the error then says why, with cond's last error.
func Poll(ctx context.Context, timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return nil
		}
		var s Stop
		if errors.As(err, &s) {
			return s.Err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v: %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(pollInterval):
		}
	}
}
