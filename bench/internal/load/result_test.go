package load

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name string
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{"none", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"median of four", ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{"p99 of a hundred", ms(seq(100)...), 0.99, 99 * time.Millisecond},
		{"max", ms(1, 2, 3), 1, 3 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.in, tt.p); got != tt.want {
				t.Errorf("Percentile(%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestRunCountsErrorsApart(t *testing.T) {
	var calls atomic.Int64
	res := Run(context.Background(), Options{Clients: 2, Duration: 100 * time.Millisecond}, func(ctx context.Context, c, seq int) error {
		time.Sleep(time.Millisecond)
		if calls.Add(1)%10 == 0 {
			return errors.New("boom")
		}
		return nil
	})
	s := res.Summary()
	if s.Ops == 0 || s.Errors == 0 || s.Ops+s.Errors != int(calls.Load()) {
		t.Fatalf("summary %+v after %d calls", s, calls.Load())
	}
	if s.FirstErr != "boom" {
		t.Errorf("first error %q", s.FirstErr)
	}
}

func TestRunPaced(t *testing.T) {
	res := Run(context.Background(), Options{Clients: 4, Duration: 500 * time.Millisecond, Rate: 100}, func(ctx context.Context, c, seq int) error {
		return nil
	})
	if n := len(res.Samples); n < 45 || n > 51 {
		t.Errorf("%d operations at 100/s for 0.5s, want about 50", n)
	}
}

func TestRunEndsWhenWorkRunsOut(t *testing.T) {
	var left atomic.Int64
	left.Store(20)
	res := Run(context.Background(), Options{Clients: 3, Duration: time.Minute}, func(ctx context.Context, c, seq int) error {
		if left.Add(-1) < 0 {
			return ErrDone
		}
		return nil
	})
	if s := res.Summary(); s.Ops != 20 || !s.Ended || s.Elapsed > time.Second {
		t.Errorf("summary %+v", s)
	}
}
