package load

import (
	"context"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Op is one operation of client c; seq counts c's operations from 0.
// It returns ErrDone when c has nothing left to do (its share of a pool
// of objects is used up): the client stops and the call is not counted.
type Op func(ctx context.Context, c, seq int) error

// ErrDone ends a client without counting the operation.
var ErrDone = errors.New("load: nothing left to do")

// Options say how to run an Op.
type Options struct {
	// Clients is how many goroutines run the operation at once.
	Clients int
	// Duration is how long operations are started for.
	Duration time.Duration
	// Rate paces the operations of all clients together at Rate per
	// second, open loop; 0 lets every client go flat out, closed loop.
	Rate float64
	// OpTimeout bounds one operation (default 30s).
	OpTimeout time.Duration
	// CPU, when set, is read as the run starts and ends: the CPU time
	// the system under load and the load generator have used so far.
	CPU CPUClock
}

// CPUClock returns the CPU time used so far by the servers a run loads
// and by the load generator.
type CPUClock func() (servers, loadgen time.Duration)

// Run runs op as opts say and returns every operation's sample. It
// returns early, with what it has, when ctx ends.
func Run(ctx context.Context, opts Options, op Op) *Result {
	if opts.OpTimeout == 0 {
		opts.OpTimeout = 30 * time.Second
	}
	var servers0, loadgen0 time.Duration
	if opts.CPU != nil {
		servers0, loadgen0 = opts.CPU()
	}
	r := &runner{opts: opts, op: op, start: time.Now()}
	r.end = r.start.Add(opts.Duration)
	per := make([][]Sample, opts.Clients)
	var wg sync.WaitGroup
	for c := range opts.Clients {
		wg.Go(func() { per[c] = r.client(ctx, c) })
	}
	wg.Wait()
	res := &Result{Elapsed: time.Since(r.start), Ended: r.ended.Load()}
	if opts.CPU != nil {
		servers, loadgen := opts.CPU()
		res.ServerCPU, res.LoadGenCPU = servers-servers0, loadgen-loadgen0
	}
	for _, s := range per {
		res.Samples = append(res.Samples, s...)
	}
	sort.Slice(res.Samples, func(i, j int) bool { return res.Samples[i].At < res.Samples[j].At })
	res.FirstErr, _ = r.firstErr.Load().(string)
	if res.Ended {
		res.Elapsed = r.lastEnd(res.Samples)
	}
	return res
}

// runner is the state one Run shares between its clients.
type runner struct {
	opts       Options
	op         Op
	start, end time.Time
	next       atomic.Int64 // the next paced operation's number
	ended      atomic.Bool  // a client ran out of work
	firstErr   atomic.Value // string
}

// client runs one client's loop and returns its samples.
func (r *runner) client(ctx context.Context, c int) []Sample {
	var out []Sample
	for seq := 0; ; seq++ {
		at, ok := r.wait(ctx)
		if !ok {
			return out
		}
		octx, cancel := context.WithTimeout(ctx, r.opts.OpTimeout)
		err := r.op(octx, c, seq)
		cancel()
		lat := time.Since(at)
		if errors.Is(err, ErrDone) {
			r.ended.Store(true)
			return out
		}
		if err != nil && ctx.Err() != nil {
			return out // cut short by the caller, not a failure
		}
		if err != nil {
			r.firstErr.CompareAndSwap(nil, err.Error())
		}
		out = append(out, Sample{At: at.Sub(r.start), Latency: lat, Err: err != nil})
	}
}

// wait returns when the next operation may start, or false when the run
// is over.
func (r *runner) wait(ctx context.Context) (time.Time, bool) {
	if ctx.Err() != nil {
		return time.Time{}, false
	}
	if r.opts.Rate <= 0 {
		now := time.Now()
		return now, now.Before(r.end)
	}
	k := r.next.Add(1) - 1
	at := r.start.Add(time.Duration(float64(k) / r.opts.Rate * float64(time.Second)))
	if !at.Before(r.end) {
		return time.Time{}, false
	}
	select {
	case <-ctx.Done():
		return time.Time{}, false
	case <-time.After(time.Until(at)):
	}
	return time.Now(), true
}

// lastEnd is when the last sample ended: the run's length when clients
// ran out of work before its Duration.
func (r *runner) lastEnd(samples []Sample) time.Duration {
	var end time.Duration
	for _, s := range samples {
		end = max(end, s.At+s.Latency)
	}
	return end
}
