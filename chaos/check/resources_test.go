package check

import (
	"testing"

	"github.com/raftapi/raftapi/chaos/history"
)

// The self-test of histories with two resources: the configmaps of
// goodHistory, then a custom resource whose changes take resourceVersions
// of the same log.

const (
	cms = "configmaps"
	crs = "chaosobjects"
)

// goodTwoResourceHistory is goodHistory on configmaps, followed by a
// custom object o created (rv 6), patched (rv 7) and deleted (rv 8), a
// delete refused as forbidden and a get and a patch answered 404 for the
// path by a node that did not serve the resource yet (it was restarted,
// and has neither its roles nor its definitions back), lists of both resources, a watcher of the custom
// resource and a bookmark past the custom changes for a configmap
// watcher, which must not miss them: they are not its resource's.
func goodTwoResourceHistory() *history.History {
	h := goodHistory()
	for i := range h.Ops {
		h.Ops[i].Resource = cms
	}
	for i := range h.Events {
		h.Events[i].Resource = cms
	}
	cr := func(id int64, kind history.Kind, invoke, complete int64, out history.Outcome) history.Op {
		o := op(id, kind, "o", invoke, complete, out)
		o.Resource = crs
		return o
	}
	create := cr(11, history.Create, 100, 105, history.OK)
	create.Value, create.ResultRV = "w1", 6
	// n3 was restarted by a kill (below) and answers 404 for the path
	// until it has replayed the definition: these say nothing of o.
	unservedGet := cr(12, history.Get, 106, 107, history.Unknown)
	unservedGet.Node, unservedGet.Code, unservedGet.Unserved = "n3", 404, true
	unservedPatch := cr(13, history.Patch, 106, 108, history.Failed)
	unservedPatch.Node, unservedPatch.Code, unservedPatch.Unserved = "n3", 404, true
	unservedPatch.Value, unservedPatch.PrecondRV, unservedPatch.PrecondVal = "w9", 6, "w1"
	// Before it has its roles back it refuses a delete: a 403 is answered
	// before any route, so it says nothing of the path being served.
	forbidden := cr(21, history.Delete, 104, 105, history.Failed)
	forbidden.Node, forbidden.Code = "n3", 403
	patch := cr(14, history.Patch, 110, 115, history.OK)
	patch.Value, patch.PrecondRV, patch.PrecondVal, patch.ResultRV = "w2", 6, "w1", 7
	get := cr(15, history.Get, 116, 118, history.OK)
	get.Node, get.Value, get.Found, get.ResultRV = "n3", "w2", true, 7
	exact := cr(16, history.List, 119, 120, history.OK)
	exact.Key, exact.Mode, exact.RequestedRV, exact.ResultRV = "", history.Exact, 7, 7
	exact.Items = []history.Item{item("o", "w2", 7)}
	del := cr(17, history.Delete, 125, 130, history.OK)
	recent := cr(18, history.List, 131, 132, history.OK)
	recent.Key, recent.Mode, recent.ResultRV = "", history.MostRecent, 8
	cmList := op(19, history.List, "", 133, 134, history.OK)
	cmList.Resource, cmList.Mode, cmList.ResultRV = cms, history.MostRecent, 8
	cmList.Items = []history.Item{item("a", "v3", 4)}
	h.Ops = append(h.Ops, create, forbidden, unservedGet, unservedPatch, patch, get, exact, del, recent, cmList)
	for _, v := range []string{"w1", "w2", "w9"} {
		h.Attempted[v] = true
	}
	h.Faults = []history.Fault{{Name: "kill-random", Targets: []string{"n3"}, Start: 97 * ms, End: 104 * ms, Restarts: true}}
	crEv := func(typ history.EventType, value string, rv, t int64) history.WatchEvent {
		e := ev(3, typ, "o", value, rv, t)
		e.Resource = crs
		return e
	}
	var events []history.WatchEvent
	for _, e := range h.Events {
		if e.Watcher == 2 && e.Type == history.Stop {
			b := ev(2, history.Bookmark, "", "", 8, 135)
			b.Resource = cms
			events = append(events, b)
		}
		events = append(events, e)
	}
	events = append(events,
		history.WatchEvent{Watcher: 3, Resource: crs, Node: "n1", Type: history.Relist, RV: 5, Time: 99 * ms},
		history.WatchEvent{Watcher: 3, Resource: crs, Node: "n1", Type: history.Start, RV: 5, Mode: history.WatchPlain, Time: 99 * ms},
		crEv(history.Added, "w1", 6, 106), crEv(history.Modified, "w2", 7, 116), crEv(history.Deleted, "w2", 8, 131),
		history.WatchEvent{Watcher: 3, Resource: crs, Type: history.Stop, RV: 8, Time: 140 * ms})
	h.Events = events
	for i := range h.Events {
		h.Events[i].Seq = int64(i + 1)
	}
	return h
}

func TestCheckersPassGoodTwoResourceHistory(t *testing.T) {
	for _, r := range All(goodTwoResourceHistory(), Options{}) {
		if !r.Passed || r.Checked == 0 {
			t.Errorf("%s: passed %v, checked %d, anomalies %+v", r.Checker, r.Passed, r.Checked, r.Anomalies)
		}
		if r.Checker == "list" && r.Skipped > 0 {
			t.Errorf("list: %d lists skipped: each resource's watchers cover its lists", r.Skipped)
		}
	}
}

// TestCheckersCatchBadTwoResourceHistories breaks the two-resource
// history one way per case.
func TestCheckersCatchBadTwoResourceHistories(t *testing.T) {
	cases := []struct {
		name, checker, kind string
		mutate              func(h *history.History)
	}{
		{"custom resource stale read", "linearizable", "stale-read", func(h *history.History) {
			g := findOp(h, 15)
			g.Value, g.ResultRV = "w1", 6
		}},
		{"a 404 for the path taken for an absent object", "linearizable", "lost-write", func(h *history.History) {
			g := findOp(h, 12)
			g.Outcome, g.Unserved = history.OK, false
		}},
		{"a 404 for the path taken for a refused patch", "linearizable", "update-404-while-present", func(h *history.History) {
			findOp(h, 13).Unserved = false
		}},
		{"patch refused while its precondition held", "linearizable", "not-linearizable", func(h *history.History) {
			p := findOp(h, 14)
			p.Outcome, p.Code, p.ResultRV = history.Failed, 409, 0
			g := findOp(h, 15)
			g.Value, g.ResultRV = "w1", 6
			h.Ops = append(h.Ops, history.Op{ID: 20, Client: 2, Node: "n1", Resource: crs, Kind: history.Update, Key: "o",
				Invoke: 121 * ms, Complete: 122 * ms, Outcome: history.OK, Value: "w3", PrecondRV: 6, PrecondVal: "w1", ResultRV: 9})
			h.Attempted["w3"] = true
			i := findEvent(h, 3, history.Modified, 7)
			h.Events = append(h.Events[:i], h.Events[i+1:]...)
		}},
		{"custom resource event missed", "watch", "missed-event", func(h *history.History) {
			i := findEvent(h, 3, history.Modified, 7)
			h.Events = append(h.Events[:i], h.Events[i+1:]...)
		}},
		{"custom resource watch stalled", "watch", "watch-stalled", func(h *history.History) {
			i := findEvent(h, 3, history.Modified, 7) // and the DELETED after it
			h.Events = append(h.Events[:i], h.Events[i+2:]...)
		}},
		{"one resourceVersion, two resources", "watch", "inconsistent-event", func(h *history.History) {
			h.Events[findEvent(h, 3, history.Added, 6)].RV = 4
		}},
		{"a configmap in the custom resource's list", "list", "wrong-list", func(h *history.History) {
			findOp(h, 16).Items = []history.Item{item("o", "w2", 7), item("a", "v3", 4)}
		}},
		{"custom resource list older than a configmap write", "list", "stale-list", func(h *history.History) {
			l := findOp(h, 16)
			l.Mode, l.RequestedRV, l.ResultRV, l.Invoke, l.Items = history.MostRecent, 0, 3, 45*ms, nil
		}},
		{"a 404 for the path without a restart", "observations", "resource-unserved", func(h *history.History) {
			h.Faults = nil
		}},
		{"a 404 for the path after serving again", "observations", "resource-unserved", func(h *history.History) {
			findOp(h, 12).Invoke, findOp(h, 12).Complete = 119*ms, 120*ms // after get 15 on n3
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := goodTwoResourceHistory()
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

// TestOldHistoriesCheckAlike: a history without resources (one recorded
// before custom resources) is one resource to the checkers.
func TestOldHistoriesCheckAlike(t *testing.T) {
	h := goodHistory()
	if got := h.Resources(); len(got) != 1 || got[0] != "" {
		t.Fatalf("resources of a history without them: %q", got)
	}
	for _, r := range All(h, Options{}) {
		if r.Checker == "list" && r.Skipped > 0 {
			t.Errorf("list: %d skipped", r.Skipped)
		}
	}
}
