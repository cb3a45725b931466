package check

import (
	"testing"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

// The checker self-test: hand-made histories, one good and one per kind
// of bug, each of which a checker must catch.

const ms = int64(time.Millisecond)

func op(id int64, kind history.Kind, key string, invoke, complete int64, out history.Outcome) history.Op {
	return history.Op{ID: id, Client: int(id % 3), Node: "n1", Kind: kind, Key: key, Invoke: invoke * ms, Complete: complete * ms, Outcome: out}
}

func ev(w int, typ history.EventType, key, value string, rv, t int64) history.WatchEvent {
	return history.WatchEvent{Watcher: w, Node: "n2", Type: typ, Key: key, Value: value, RV: rv, Time: t * ms}
}

func item(key, value string, rv int64) history.Item {
	return history.Item{Key: key, Value: value, RV: rv}
}

// goodHistory is a correct history: creates, an update with a
// precondition, a delete, a write with an unknown outcome that never took
// effect, lists of every mode and two watchers, one with initial events.
func goodHistory() *history.History {
	h := &history.History{Namespace: "chaos", Nodes: []string{"n1", "n2", "n3"}, Attempted: map[string]bool{}}
	create := func(id int64, key, value string, rv, inv, comp int64) history.Op {
		o := op(id, history.Create, key, inv, comp, history.OK)
		o.Value, o.ResultRV = value, rv
		return o
	}
	upd := op(3, history.Update, "a", 30, 40, history.OK)
	upd.Value, upd.PrecondRV, upd.PrecondVal, upd.ResultRV = "v3", 2, "v1", 4
	get := op(4, history.Get, "a", 45, 50, history.OK)
	get.Value, get.Found, get.ResultRV = "v3", true, 4
	del := op(5, history.Delete, "b", 55, 60, history.OK)
	lost := op(6, history.Create, "c", 60, 70, history.Unknown)
	lost.Value = "v4"
	absent := op(7, history.Get, "c", 80, 90, history.OK)
	exact := op(8, history.List, "", 91, 92, history.OK)
	exact.Mode, exact.RequestedRV, exact.ResultRV = history.Exact, 4, 4
	exact.Items = []history.Item{item("a", "v3", 4), item("b", "v2", 3)}
	newer := op(9, history.List, "", 93, 94, history.OK)
	newer.Mode, newer.RequestedRV, newer.ResultRV = history.NotOlderThan, 3, 5
	newer.Items = []history.Item{item("a", "v3", 4)}
	paged := op(10, history.List, "", 95, 96, history.OK)
	paged.Mode, paged.Limit, paged.ResultRV, paged.Pages = history.MostRecent, 1, 5, []int64{5, 5}
	paged.Items = []history.Item{item("a", "v3", 4)}
	h.Ops = []history.Op{create(1, "a", "v1", 2, 10, 20), create(2, "b", "v2", 3, 15, 25), upd, get, del, lost, absent, exact, newer, paged}
	for _, v := range []string{"v1", "v2", "v3", "v4"} {
		h.Attempted[v] = true
	}
	h.Events = []history.WatchEvent{
		{Watcher: 1, Node: "n2", Type: history.Relist, RV: 1, Time: 1 * ms},
		{Watcher: 1, Node: "n2", Type: history.Start, RV: 1, Mode: history.WatchPlain, Time: 2 * ms},
		ev(1, history.Added, "a", "v1", 2, 21), ev(1, history.Added, "b", "v2", 3, 26),
		ev(1, history.Modified, "a", "v3", 4, 41), ev(1, history.Deleted, "b", "v2", 5, 61),
		{Watcher: 1, Type: history.Stop, RV: 5, Time: 100 * ms},
		{Watcher: 2, Node: "n3", Type: history.Start, Mode: history.WatchInitialEvents, Time: 11 * ms},
		{Watcher: 2, Node: "n3", Type: history.Added, Key: "a", Value: "v1", RV: 2, Initial: true, Time: 22 * ms},
		{Watcher: 2, Node: "n3", Type: history.Bookmark, RV: 2, InitialEnd: true, Time: 23 * ms},
		ev(2, history.Added, "b", "v2", 3, 27), ev(2, history.Modified, "a", "v3", 4, 42),
		ev(2, history.Bookmark, "", "", 4, 43), ev(2, history.Deleted, "b", "v2", 5, 62),
		{Watcher: 2, Type: history.Stop, RV: 5, Time: 100 * ms},
	}
	for i := range h.Events {
		h.Events[i].Seq = int64(i + 1)
	}
	return h
}

// findOp returns the operation with id.
func findOp(h *history.History, id int64) *history.Op {
	for i := range h.Ops {
		if h.Ops[i].ID == id {
			return &h.Ops[i]
		}
	}
	panic("no op")
}

// findEvent returns watcher w's event at rv of type typ.
func findEvent(h *history.History, w int, typ history.EventType, rv int64) int {
	for i, e := range h.Events {
		if e.Watcher == w && e.Type == typ && e.RV == rv {
			return i
		}
	}
	panic("no event")
}

func insertEvent(h *history.History, at int, e history.WatchEvent) {
	h.Events = append(h.Events[:at], append([]history.WatchEvent{e}, h.Events[at:]...)...)
}

func TestCheckersPassGoodHistory(t *testing.T) {
	for _, r := range All(goodHistory(), Options{}) {
		if !r.Passed || r.Checked == 0 {
			t.Errorf("%s: passed %v, checked %d, anomalies %+v", r.Checker, r.Passed, r.Checked, r.Anomalies)
		}
	}
}

// TestCheckersCatchBadHistories breaks the good history one way per case
// and expects the named checker to report the named anomaly.
func TestCheckersCatchBadHistories(t *testing.T) {
	cases := []struct {
		name, checker, kind string
		mutate              func(h *history.History)
	}{
		{"stale read", "linearizable", "stale-read", func(h *history.History) {
			g := findOp(h, 4) // reads a after the update completed
			g.Value, g.ResultRV = "v1", 2
		}},
		{"update refused as not found while the key exists", "linearizable", "update-404-while-present", func(h *history.History) {
			u := op(11, history.Update, "b", 26, 28, history.Failed)
			u.Code, u.Value, u.PrecondRV, u.PrecondVal = 404, "v9", 1, "v0"
			h.Ops = append(h.Ops, u)
			h.Attempted["v9"] = true
		}},
		{"lost write", "linearizable", "lost-write", func(h *history.History) {
			g := findOp(h, 7) // reads the acknowledged a... as absent
			g.Key = "a"
		}},
		{"lost write missed by a watcher", "watch", "missed-event", func(h *history.History) {
			i := findEvent(h, 1, history.Modified, 4)
			h.Events = append(h.Events[:i], h.Events[i+1:]...)
		}},
		{"duplicated watch event", "watch", "duplicate-event", func(h *history.History) {
			i := findEvent(h, 1, history.Modified, 4)
			insertEvent(h, i+1, h.Events[i])
		}},
		{"reordered watch event", "watch", "reordered-event", func(h *history.History) {
			i := findEvent(h, 1, history.Added, 3)
			h.Events[i], h.Events[i+1] = h.Events[i+1], h.Events[i]
		}},
		{"event below a bookmark", "watch", "event-below-bookmark", func(h *history.History) {
			i := findEvent(h, 2, history.Modified, 4)
			h.Events[i], h.Events[i+1] = h.Events[i+1], h.Events[i]
		}},
		{"initial-events-end before an initial event", "watch", "initial-events-end-too-early", func(h *history.History) {
			i := findEvent(h, 2, history.Bookmark, 2)
			h.Events[i].RV = 1
		}},
		{"watch stalled", "watch", "watch-stalled", func(h *history.History) {
			i := findEvent(h, 2, history.Deleted, 5)
			h.Events = append(h.Events[:i], h.Events[i+1:]...)
		}},
		{"inconsistent event", "watch", "inconsistent-event", func(h *history.History) {
			h.Events[findEvent(h, 2, history.Modified, 4)].Value = "v2"
		}},
		{"exact list of the wrong state", "list", "wrong-list", func(h *history.History) {
			findOp(h, 8).Items = []history.Item{item("a", "v3", 4)}
		}},
		{"pages at different resourceVersions", "list", "pages-differ", func(h *history.History) {
			findOp(h, 10).Pages = []int64{5, 4}
		}},
		{"NotOlderThan list too old", "list", "list-too-old", func(h *history.History) {
			l := findOp(h, 9)
			l.RequestedRV = 6
		}},
		{"stale Most Recent list", "list", "stale-list", func(h *history.History) {
			l := findOp(h, 10)
			l.ResultRV, l.Pages, l.Items = 3, []int64{3, 3}, []history.Item{item("a", "v1", 2), item("b", "v2", 3)}
		}},
		{"phantom value", "observations", "phantom-value", func(h *history.History) {
			delete(h.Attempted, "v3")
		}},
		{"failed write visible", "observations", "failed-write-visible", func(h *history.History) {
			l := findOp(h, 6)
			l.Outcome, l.Code, l.Value = history.Failed, 503, "v3"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := goodHistory()
			tc.mutate(h)
			r := resultOf(t, All(h, Options{}), tc.checker)
			if r.Passed {
				t.Fatalf("%s passed a history with a %s", tc.checker, tc.name)
			}
			for _, a := range r.Anomalies {
				if a.Kind == tc.kind {
					t.Logf("caught: %s: %s", a.Kind, a.Message)
					return
				}
			}
			t.Fatalf("%s did not report %s; got %+v", tc.checker, tc.kind, r.Anomalies)
		})
	}
}

// TestToleratedAnomalyPasses: an anomaly of a tolerated kind is reported
// but does not fail its checker.
func TestToleratedAnomalyPasses(t *testing.T) {
	h := goodHistory()
	findOp(h, 10).Pages = []int64{5, 4}
	r := resultOf(t, All(h, Options{Tolerate: []string{"pages-differ"}}), "list")
	if !r.Passed || r.Tolerated != 1 || r.Count != 1 {
		t.Fatalf("tolerated anomaly: passed %v, tolerated %d, count %d", r.Passed, r.Tolerated, r.Count)
	}
}

func resultOf(t *testing.T, rs []Result, checker string) Result {
	t.Helper()
	for _, r := range rs {
		if r.Checker == checker {
			return r
		}
	}
	t.Fatalf("no result from %s", checker)
	return Result{}
}
