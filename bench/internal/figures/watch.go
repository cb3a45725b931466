package figures

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/bench/internal/load"
)

// WatchConfig describes a watch fan-out figure: Watchers watch one space
// while writers create keys in it at Rate per second for Duration.
type WatchConfig struct {
	Title    string
	Space    string
	Watchers int
	Rate     float64
	Duration time.Duration
	Value    string
	// Grace is how long the watchers may take, after the last write, to
	// receive the events still on their way (default 10s).
	Grace time.Duration
}

// WatchCounts are a watch figure's counts; its latencies, from each
// write's acknowledgement to each watcher's receipt of the event, are
// the outcome's Summary.
type WatchCounts struct {
	Watchers int `json:"watchers"`
	// Writes were acknowledged, at WriteRate per second.
	Writes    int     `json:"writes"`
	WriteRate float64 `json:"writes_per_sec"`
	// Delivered events of Expected (Writes × Watchers).
	Delivered int64 `json:"delivered"`
	Expected  int64 `json:"expected"`
	// CutOff watchers ended before the figure did; FirstCut says why.
	CutOff   int    `json:"cut_off"`
	FirstCut string `json:"first_cut,omitempty"`
	// Lost events never reached a watcher that stayed open to the end.
	Lost int64 `json:"lost"`
}

// receipt is one event a watcher received: the write's number and when.
type receipt struct {
	idx int
	at  int64 // UnixNano
}

// watchRun is the state of one watch figure.
type watchRun struct {
	cfg     WatchConfig
	t       Target
	commits []atomic.Int64 // UnixNano of each write's acknowledgement
	acked   atomic.Int64
	got     [][]receipt
	counts  []atomic.Int64 // events each watcher received
	cut     []error        // why each watcher ended early, nil if it did not
	ended   []atomic.Bool  // the watcher's stream ended
	closing atomic.Bool    // the figure is closing the watches
}

// WatchFanout measures how long events take from a write's
// acknowledgement to every watcher. A negative delay (the event reached
// the watcher before the writer heard back) counts as zero.
func WatchFanout(ctx context.Context, t Target, cfg WatchConfig) (Outcome, error) {
	if cfg.Grace == 0 {
		cfg.Grace = 10 * time.Second
	}
	if err := t.Prepare(ctx, cfg.Space); err != nil {
		return Outcome{}, err
	}
	streams, err := openStreams(ctx, t, cfg.Space, cfg.Watchers)
	if err != nil {
		return Outcome{}, err
	}
	w := &watchRun{cfg: cfg, t: t, commits: make([]atomic.Int64, int(cfg.Rate*cfg.Duration.Seconds())+1),
		got: make([][]receipt, len(streams)), counts: make([]atomic.Int64, len(streams)), cut: make([]error, len(streams)),
		ended: make([]atomic.Bool, len(streams))}
	var wg sync.WaitGroup
	for i, s := range streams {
		wg.Go(func() { w.receive(i, s) })
	}
	start := time.Now()
	res := w.write(ctx)
	w.drain(ctx)
	w.closing.Store(true)
	for _, s := range streams {
		s.Close()
	}
	wg.Wait()
	return w.outcome(start, res), nil
}

// openStreams opens n watches, a few at a time.
func openStreams(ctx context.Context, t Target, space string, n int) ([]Stream, error) {
	streams := make([]Stream, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			streams[i], errs[i] = t.Watch(ctx, i, space)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			for _, s := range streams {
				if s != nil {
					s.Close()
				}
			}
			return nil, fmt.Errorf("figures: open watch %d: %w", i, err)
		}
	}
	return streams, nil
}

// receive records watcher i's events until its stream ends.
func (w *watchRun) receive(i int, s Stream) {
	for {
		name, err := s.Next()
		if err != nil {
			if !w.closing.Load() {
				w.cut[i] = err
			}
			w.ended[i].Store(true)
			return
		}
		idx, err := strconv.Atoi(strings.TrimPrefix(name, "w-"))
		if err != nil || !strings.HasPrefix(name, "w-") {
			continue // not one of the figure's writes
		}
		w.got[i] = append(w.got[i], receipt{idx: idx, at: time.Now().UnixNano()})
		w.counts[i].Add(1)
	}
}

// write creates the keys at the configured rate.
func (w *watchRun) write(ctx context.Context) *load.Result {
	writers := min(max(int(w.cfg.Rate/10), 4), 256) // enough for 100ms writes at the rate
	var next atomic.Int64
	return load.Run(ctx, load.Options{Clients: writers, Duration: w.cfg.Duration, Rate: w.cfg.Rate}, func(ctx context.Context, c, _ int) error {
		idx := int(next.Add(1) - 1)
		if idx >= len(w.commits) {
			return load.ErrDone
		}
		if err := w.t.Create(ctx, c, w.cfg.Space, "w-"+strconv.Itoa(idx), w.cfg.Value); err != nil {
			return err
		}
		w.commits[idx].Store(time.Now().UnixNano())
		w.acked.Add(1)
		return nil
	})
}

// drain waits until every watcher still open has received as many events
// as there were acknowledged writes, or the grace period ends.
func (w *watchRun) drain(ctx context.Context) {
	deadline := time.Now().Add(w.cfg.Grace)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		done := true
		for i := range w.counts {
			if !w.ended[i].Load() && w.counts[i].Load() < w.acked.Load() {
				done = false
				break
			}
		}
		if done {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// outcome turns the receipts into delivery latencies and counts.
func (w *watchRun) outcome(start time.Time, writes *load.Result) Outcome {
	ws := writes.Summary()
	counts := &WatchCounts{Watchers: len(w.got), Writes: int(w.acked.Load()), Expected: w.acked.Load() * int64(len(w.got))}
	if ws.Elapsed > 0 {
		counts.WriteRate = float64(counts.Writes) / ws.Elapsed.Seconds()
	}
	res := &load.Result{Elapsed: writes.Elapsed, FirstErr: writes.FirstErr}
	for i, got := range w.got {
		seen := 0
		for _, r := range got {
			commit := w.commits[r.idx].Load()
			if commit == 0 {
				continue // a write that failed as far as its client knows
			}
			seen++
			res.Samples = append(res.Samples, load.Sample{At: time.Duration(commit - start.UnixNano()), Latency: time.Duration(max(r.at-commit, 0))})
		}
		counts.Delivered += int64(len(got))
		if w.cut[i] != nil {
			counts.CutOff++
			if counts.FirstCut == "" {
				counts.FirstCut = w.cut[i].Error()
			}
		} else {
			counts.Lost += int64(max(counts.Writes-seen, 0))
		}
	}
	slices.SortFunc(res.Samples, func(a, b load.Sample) int { return cmp.Compare(a.At, b.At) })
	o := outcome(w.cfg.Title, w.t.Name(), res)
	o.Summary.Errors, o.Summary.FirstErr = ws.Errors, ws.FirstErr
	o.Watch = counts
	o.Note = fmt.Sprintf("%d watchers, %d writes at %.0f/s (asked %.0f/s); %d of %d events delivered; %d watchers cut off",
		counts.Watchers, counts.Writes, counts.WriteRate, w.cfg.Rate, counts.Delivered, counts.Expected, counts.CutOff)
	return o
}
