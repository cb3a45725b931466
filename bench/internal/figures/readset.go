package figures

import (
	"context"
	"fmt"
)

// Reads runs the read figures of one target one at a time — the Most
// Recent get and the list at the largest client count, the watch
// delivery — so that the figures of several targets can take turns
// (bench-conversion compares targets on one busy machine).
type Reads struct {
	r       *runner
	watches int // watch figures run, each in a space of its own
}

// NewReads fills t's read space with cfg.ListItems keys (as Run does)
// and returns its read figures.
func NewReads(ctx context.Context, t Target, cfg Config) (*Reads, error) {
	r := &runner{cfg: cfg, t: t, value: NewValue(cfg.ValueSize), created: map[int]float64{}}
	if err := r.prepareReads(ctx); err != nil {
		return nil, fmt.Errorf("figures: %s: %w", t.Name(), err)
	}
	return &Reads{r: r}, nil
}

// Get runs the Most Recent get figure.
func (s *Reads) Get(ctx context.Context) Outcome { return s.r.logged(s.r.get(ctx, false)) }

// List runs the list figure.
func (s *Reads) List(ctx context.Context) Outcome { return s.r.logged(s.r.list(ctx)) }

// Watch runs the watch delivery figure, each time in a fresh space (the
// figure creates keys of fixed names).
func (s *Reads) Watch(ctx context.Context) (Outcome, error) {
	s.watches++
	space := "watch"
	if s.watches > 1 {
		space = fmt.Sprintf("watch-%d", s.watches)
	}
	o, err := WatchFanout(ctx, s.r.t, WatchConfig{Title: fmt.Sprintf("watch delivery, %d watchers", s.r.cfg.Watchers),
		Space: space, Watchers: s.r.cfg.Watchers, Rate: s.r.cfg.WatchRate, Duration: s.r.cfg.Duration, Value: s.r.value})
	if err != nil {
		return o, err
	}
	return s.r.logged(o), nil
}
