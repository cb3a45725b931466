package figures

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/raftapi/raftapi/bench/internal/load"
)

// Config says how big and how long the figures are.
type Config struct {
	// Clients are the client counts of the write figures, as 1 and 64;
	// the read figures run at the largest.
	Clients []int
	// Duration is each figure's length.
	Duration time.Duration
	// ValueSize is the size of every value written, in bytes.
	ValueSize int
	// ListItems is how many keys the list figure reads at once.
	ListItems int
	// Watchers watch while writes go in at WatchRate per second.
	Watchers  int
	WatchRate float64
	// Log receives a line per figure.
	Log io.Writer
	// CPU, when set, measures the CPU time of the read and write
	// figures (see load.Options.CPU).
	CPU load.CPUClock
}

// runner is the state of one target's figures.
type runner struct {
	cfg     Config
	t       Target
	value   string
	pool    pool
	reads   []string
	created map[int]float64 // create ops/s by client count
	fills   int
	logMu   sync.Mutex
}

// Run runs every figure on t, in an order that lets the later figures
// use what the earlier wrote, and returns the outcomes in the order of
// the report's table. An error means a figure could not be set up, or
// ctx ended; a figure that ran with errors says so in its Outcome.
func Run(ctx context.Context, t Target, cfg Config) ([]Outcome, error) {
	r := &runner{cfg: cfg, t: t, value: NewValue(cfg.ValueSize), created: map[int]float64{}}
	if err := t.Prepare(ctx, writeSpace); err != nil {
		return nil, err
	}
	if err := r.prepareReads(ctx); err != nil {
		return nil, err
	}
	var creates, updates, deletes, reads []Outcome
	for _, s := range r.steps(&creates, &updates, &deletes, &reads) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		o, err := s.run(ctx)
		if err != nil {
			return nil, err
		}
		*s.into = append(*s.into, r.logged(o))
	}
	return slices.Concat(creates, updates, deletes, reads), ctx.Err()
}

// step is one figure, and the group of the table its outcome goes to.
type step struct {
	into *[]Outcome
	run  func(context.Context) (Outcome, error)
}

// steps are the figures in the order they run: creates fill the pool
// that the updates and, last, the deletes use.
func (r *runner) steps(creates, updates, deletes, reads *[]Outcome) []step {
	var s []step
	for _, n := range r.cfg.Clients {
		s = append(s, step{creates, func(ctx context.Context) (Outcome, error) { return r.create(ctx, n), nil }})
	}
	for _, n := range r.cfg.Clients {
		s = append(s, step{updates, func(ctx context.Context) (Outcome, error) { return r.update(ctx, n) }})
	}
	s = append(s,
		step{reads, func(ctx context.Context) (Outcome, error) { return r.get(ctx, false), nil }},
		step{reads, func(ctx context.Context) (Outcome, error) { return r.get(ctx, true), nil }},
		step{reads, func(ctx context.Context) (Outcome, error) { return r.list(ctx), nil }},
		step{reads, r.watch})
	for _, n := range r.cfg.Clients {
		s = append(s, step{deletes, func(ctx context.Context) (Outcome, error) { return r.deleteKeys(ctx, n) }})
	}
	return s
}

// watch runs the watch figure: Watchers watching while keys are created
// at WatchRate.
func (r *runner) watch(ctx context.Context) (Outcome, error) {
	return WatchFanout(ctx, r.t, WatchConfig{Title: fmt.Sprintf("watch delivery, %d watchers", r.cfg.Watchers),
		Space: "watch", Watchers: r.cfg.Watchers, Rate: r.cfg.WatchRate, Duration: r.cfg.Duration, Value: r.value})
}

func (r *runner) maxClients() int { return slices.Max(r.cfg.Clients) }

// logged logs the outcome's line and returns it.
func (r *runner) logged(o Outcome) Outcome {
	s := o.Summary
	r.logf("%s: %s: %.0f ops/s, p50 %v, p99 %v, %d errors", o.Target, o.Figure, s.OpsPerSec,
		s.P50.Round(10*time.Microsecond), s.P99.Round(10*time.Microsecond), s.Errors)
	return o
}

func (r *runner) logf(format string, args ...any) {
	if r.cfg.Log == nil {
		return
	}
	r.logMu.Lock()
	defer r.logMu.Unlock()
	fmt.Fprintf(r.cfg.Log, format+"\n", args...)
}
