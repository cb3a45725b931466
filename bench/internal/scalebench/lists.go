package scalebench

import (
	"context"
	"fmt"
	"runtime"
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
// request, Repeat times, after one list it does not time: that one grows
// the client's list buffer (see timedList) and meets the server's first
// read of the pages the load just wrote.
func (r *run) list(ctx context.Context, res *Results) error {
	out := &List{}
	if _, _, err := r.timedList(ctx, kubeapi.ListOptions{}); err != nil {
		return err
	}
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
// returns how long the whole response took. The body is read into the
// run's list buffer, which the page shares until the next timedList: a
// fresh buffer per list would time the client's heap growing by the
// list's size (at 100,000 objects, 143 MB of page faults, which took
// this client longer than the server took to send the list). The
// client collects its garbage before it starts the clock, as a Go
// benchmark does: decoding the previous list left as much again.
func (r *run) timedList(ctx context.Context, o kubeapi.ListOptions) (time.Duration, kubeapi.Page, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	runtime.GC()
	start := time.Now()
	p, err := r.clients[0].ListConfigMapsInto(ctx, listNS, o, &r.listBuf)
	if err != nil {
		return 0, p, fmt.Errorf("list %s: %w", listNS, err)
	}
	return time.Since(start), p, nil
}
