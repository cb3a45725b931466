package scalebench

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/raftapi/raftapi/bench/internal/report"
)

// Table is a row per measurement: what, the figure, and the details.
func (r Results) Table() report.Table {
	t := report.Table{Columns: []string{"figure", "result", "detail"}, LeftTail: 1}
	add := func(cells ...string) { t.Rows = append(t.Rows, cells) }
	if o := r.Watch; o != nil {
		w := o.Watch
		add(fmt.Sprintf("watch fan-out, %d watchers: p99 write → event", w.Watchers), report.Duration(o.Summary.P99),
			fmt.Sprintf("p50 %s; %.0f writes/s; %d of %d events delivered (%s/s); %d watchers cut off",
				report.Duration(o.Summary.P50), w.WriteRate, w.Delivered, w.Expected, report.Rate(o.Summary.OpsPerSec), w.CutOff))
	}
	for _, l := range r.Loads {
		add(fmt.Sprintf("load %d ConfigMaps into %s, %d clients", l.Objects, l.Namespace, l.Clients),
			report.Rate(float64(l.Objects)/l.Elapsed.Seconds())+" objects/s",
			fmt.Sprintf("%s; %s of objects", report.Duration(l.Elapsed), report.Bytes(l.Bytes)))
	}
	if l := r.List; l != nil {
		m := median(l.Times)
		add(fmt.Sprintf("list %d ConfigMaps, one JSON request", l.Objects), report.Duration(m),
			fmt.Sprintf("median of %d; %s, %s/s", len(l.Times), report.Bytes(l.Bytes), report.Bytes(int64(float64(l.Bytes)/m.Seconds()))))
	}
	if p := r.Paged; p != nil {
		add(fmt.Sprintf("paged list, limit=%d", p.Limit), report.Rate(p.Summary.OpsPerSec)+" pages/s",
			fmt.Sprintf("p50 %s, p99 %s per page; %d pages in %s", report.Duration(p.Summary.P50), report.Duration(p.Summary.P99),
				p.Summary.Ops, report.Duration(p.Summary.Elapsed)))
	}
	if e := r.Exact; e != nil {
		old, cur := median(e.Old), median(e.Current)
		add("Exact list: old revision / current", fmt.Sprintf("%.2f×", old.Seconds()/cur.Seconds()),
			fmt.Sprintf("rv %s (%d updates ago): %s; rv %s: %s; medians of %d", e.OldRV, e.Churn, report.Duration(old),
				e.CurrentRV, report.Duration(cur), len(e.Old)))
	}
	for _, m := range r.Memory {
		add(fmt.Sprintf("memory %s, %s (%s)", m.Node, strings.ToLower(m.Role), m.When), "RSS "+report.Bytes(m.RSS),
			fmt.Sprintf("%.1f× the %s of objects held; anon %s, file-backed %s; state db %s, raft log %s",
				float64(m.RSS)/float64(max(m.Held, 1)), report.Bytes(m.Held), report.Bytes(m.Anon), report.Bytes(m.File),
				report.Bytes(m.StateBytes), report.Bytes(m.LogBytes)))
	}
	if s := r.Restart; s != nil {
		add(fmt.Sprintf("restart %s holding %d objects: /readyz 200 after", s.Node, s.Objects), report.Duration(s.Ready), "from the process's start")
	}
	if c := r.CatchUp; c != nil {
		total := c.Add + c.CaughtUp
		add(fmt.Sprintf("new member %s added and caught up", c.Node), report.Duration(total),
			fmt.Sprintf("add %s, then ready after %s, caught up after %s; %s on disk, %s/s", report.Duration(c.Add),
				report.Duration(c.Ready), report.Duration(c.CaughtUp), report.Bytes(c.Bytes),
				report.Bytes(int64(float64(c.Bytes)/total.Seconds()))))
	}
	return t
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
