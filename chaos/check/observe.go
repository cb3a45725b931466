package check

import (
	"github.com/raftapi/raftapi/chaos/history"
)

// Observations checks that every value read or watched was written by
// someone, never by a write that definitely failed, that one write has
// one resourceVersion wherever it is seen, and that a node stopped
// serving a resource only while it restarted (checkServed).
func Observations(h *history.History, tl *timeline) Result {
	r := &Result{Checker: "observations"}
	checkServed(r, h)
	failed := map[string]history.Op{}
	for _, o := range h.Ops {
		if o.IsWrite() && o.Outcome == history.Failed && o.Value != "" {
			failed[o.Value] = o
		}
	}
	seen := map[string]int64{}
	look := func(value string, rv int64, t int64, what string) {
		r.Checked++
		switch f, ok := failed[value]; {
		case ok:
			r.add("failed-write-visible", t, "%s saw %q at rv %d, written by %s op %d that failed (HTTP %d: %s)", what, value, rv, f.Kind, f.ID, f.Code, f.Error)
		case !h.Attempted[value]:
			r.add("phantom-value", t, "%s saw %q at rv %d, which no client wrote", what, value, rv)
		}
		if prev, ok := seen[value]; ok && prev != rv {
			r.add("one-write-two-rvs", t, "%s saw %q at rv %d, elsewhere at rv %d", what, value, rv, prev)
		}
		seen[value] = rv
	}
	observeOps(h, look)
	observeEvents(h, look)
	for _, c := range tl.conflicts {
		if !c.Old.Watched && !c.New.Watched {
			r.add("conflicting-reads", c.Time, "rv %d is %s and %s", c.RV, c.Old, c.New)
		}
	}
	return r.finish()
}

type lookFunc func(value string, rv, t int64, what string)

func observeOps(h *history.History, look lookFunc) {
	for _, o := range h.Ops {
		if o.Outcome != history.OK {
			continue
		}
		what := sprintf("%s op %d (client %d on %s)", o.Kind, o.ID, o.Client, o.Node)
		switch {
		case o.Kind == history.Get && o.Found:
			look(o.Value, o.ResultRV, o.Complete, what)
		case o.Kind == history.List:
			for _, it := range o.Items {
				look(it.Value, it.RV, o.Complete, what)
			}
		}
	}
}

func observeEvents(h *history.History, look lookFunc) {
	for _, e := range h.Events {
		what := sprintf("watcher %d on %s", e.Watcher, e.Node)
		if e.IsChange() && e.Type != history.Deleted {
			look(e.Value, e.RV, e.Time, what)
		}
		for _, it := range e.Items {
			look(it.Value, it.RV, e.Time, what+" relist")
		}
	}
}
