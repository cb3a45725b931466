package scalebench

import (
	"context"
	"fmt"
	"time"

	"github.com/raftapi/raftapi/bench/internal/kubeapi"
)

// listed is what the list steps share: the listed namespace's objects,
// as loaded, and how many a list of it returns.
type listed struct {
	loaded
	total int // ListObjects and what raftapi added (its CA bundle)
}

// loadList creates the listed namespace's objects.
func (r *run) loadList(ctx context.Context, res *Results) error {
	l, objs, err := r.bulkLoad(ctx, listNS, "o", r.cfg.ListObjects)
	res.Loads = append(res.Loads, l)
	if err != nil {
		return err
	}
	r.held += l.Bytes
	r.objs = listed{loaded: objs}
	r.logf("load %s: %d objects in %v (%.0f/s)", listNS, l.Objects, l.Elapsed.Round(time.Millisecond), float64(l.Objects)/l.Elapsed.Seconds())
	return nil
}

// list times a Most Recent list of the whole namespace in one JSON
// request, Repeat times.
func (r *run) list(ctx context.Context, res *Results) error {
	out := &List{}
	for range r.cfg.Repeat {
		d, p, err := r.timedList(ctx, kubeapi.ListOptions{})
		if err != nil {
			return err
		}
		n, size, err := p.Items()
		if err != nil {
			return err
		}
		if n < r.cfg.ListObjects {
			return fmt.Errorf("list %s: %d items, want at least %d", listNS, n, r.cfg.ListObjects)
		}
		out.Objects, out.Bytes, r.objs.total = n, int64(len(p.Body)), n
		out.Times = append(out.Times, d)
		r.logf("list %s: %d items, %d bytes in %v (items %d bytes)", listNS, n, len(p.Body), d.Round(time.Millisecond), size)
	}
	res.List = out
	return nil
}

// timedList lists the namespace with o through the first node and
// returns how long the whole response took.
func (r *run) timedList(ctx context.Context, o kubeapi.ListOptions) (time.Duration, kubeapi.Page, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	start := time.Now()
	p, err := r.clients[0].ListConfigMaps(ctx, listNS, o)
	if err != nil {
		return 0, p, fmt.Errorf("list %s: %w", listNS, err)
	}
	return time.Since(start), p, nil
}
