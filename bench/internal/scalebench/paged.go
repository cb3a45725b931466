package scalebench

import (
	"context"
	"fmt"
	"time"

	"github.com/raftapi/raftapi/bench/internal/kubeapi"
	"github.com/raftapi/raftapi/bench/internal/load"
)

// paged pages through the listed namespace with limit=PageLimit, over
// and over, for Duration: one client, each page a request of its own
// with the previous page's continue token.
func (r *run) paged(ctx context.Context, res *Results) error {
	var cont string
	pages := 0
	result := load.Run(ctx, load.Options{Clients: 1, Duration: r.cfg.Duration, OpTimeout: time.Minute}, func(ctx context.Context, _, _ int) error {
		p, err := r.clients[0].ListConfigMaps(ctx, listNS, kubeapi.ListOptions{Limit: r.cfg.PageLimit, Continue: cont})
		if err != nil {
			return err
		}
		if n := p.Count(); n == 0 || n > r.cfg.PageLimit {
			return fmt.Errorf("a page of %d items, limit %d", n, r.cfg.PageLimit)
		}
		cont = p.Continue
		pages++
		return nil
	})
	s := result.Summary()
	res.Paged = &Paged{Limit: r.cfg.PageLimit, Summary: s, Series: result.Series(max(result.Elapsed/40, time.Millisecond))}
	r.logf("paged list, limit %d: %d pages, %.1f pages/s, p50 %v, p99 %v", r.cfg.PageLimit, pages, s.OpsPerSec, s.P50, s.P99)
	switch {
	case s.Errors > 0:
		return fmt.Errorf("paged list: %d errors (first: %s)", s.Errors, s.FirstErr)
	case s.Ops == 0:
		return fmt.Errorf("paged list: no page")
	}
	return nil
}
