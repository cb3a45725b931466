package scalebench

import (
	"context"
	"fmt"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/kubeapi"
	"github.com/raftapi/raftapi/bench/internal/target"
)

// watchSpace is the space of the watch fan-out's writes.
const watchSpace = "scale-watch"

// watch is the watch fan-out: Watchers spread over the nodes while
// writes go in at WatchRate. Cut-off watchers are a figure unless
// MaxCutOff bounds them; lost events and failed writes are problems.
// A problem fails the run but does not stop it: the later steps do not
// depend on this one.
func (r *run) watch(ctx context.Context, res *Results) error {
	t := target.NewRaftapi(r.clients, r.c.NewTransport)
	o, err := figures.WatchFanout(ctx, t, figures.WatchConfig{
		Title: fmt.Sprintf("watch fan-out, %d watchers", r.cfg.Watchers), Space: watchSpace,
		Watchers: r.cfg.Watchers, Rate: r.cfg.WatchRate, Duration: r.cfg.Duration, Value: r.value})
	if err != nil {
		return err
	}
	res.Watch = &o
	s := o.Summary
	r.logf("watch fan-out: %s; delivery p50 %v, p99 %v", o.Note, s.P50, s.P99)
	res.Problems = append(res.Problems, r.watchProblems(o)...)
	return r.countHeld(ctx, target.Namespace(watchSpace))
}

// watchProblems are what makes the watch fan-out a failed figure.
func (r *run) watchProblems(o figures.Outcome) []string {
	var out []string
	s, w := o.Summary, o.Watch
	if s.Errors > 0 {
		out = append(out, fmt.Sprintf("watch fan-out: %d writes failed (first: %s)", s.Errors, s.FirstErr))
	}
	if s.Ops == 0 {
		out = append(out, "watch fan-out: no event delivered")
	}
	if w.Lost > 0 {
		out = append(out, fmt.Sprintf("watch fan-out: %d events never reached a watcher that stayed open", w.Lost))
	}
	if r.cfg.MaxCutOff >= 0 && w.CutOff > r.cfg.MaxCutOff {
		out = append(out, fmt.Sprintf("watch fan-out: %d watchers cut off, more than %d (first: %s)", w.CutOff, r.cfg.MaxCutOff, w.FirstCut))
	}
	return out
}

// countHeld adds the size of every object of namespace ns, listed, to
// the data the cluster holds.
func (r *run) countHeld(ctx context.Context, ns string) error {
	opts := kubeapi.ListOptions{Limit: 500}
	for {
		p, err := r.clients[0].ListConfigMaps(ctx, ns, opts)
		if err != nil {
			return fmt.Errorf("scalebench: list %s: %w", ns, err)
		}
		_, size, err := p.Items()
		if err != nil {
			return err
		}
		r.held += size
		if p.Continue == "" {
			return nil
		}
		opts.Continue = p.Continue
	}
}
