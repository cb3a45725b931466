package raftnodes

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// stop wraps an error that ends a poll at once.
type stop struct{ error }

// pollInterval is how often a condition is tried again.
const pollInterval = 20 * time.Millisecond

// poll calls cond until it returns nil, returns a stop error, ctx ends or
// timeout passes; the error then says why, with cond's last error.
func poll(ctx context.Context, timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return nil
		}
		var s stop
		if errors.As(err, &s) {
			return s.error
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
