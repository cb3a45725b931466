package check

import (
	"github.com/raftapi/raftapi/chaos/history"
)

// Lists checks every successful list: its resourceVersion against what
// it asked for and against writes acknowledged before it began, its pages
// against each other, and its items against the state reconstructed at
// its resourceVersion.
func Lists(h *history.History, tl *timeline) Result {
	r := &Result{Checker: "list"}
	acked := newAckIndex(h)
	claims := map[string][]claim{}
	for _, o := range h.Ops {
		if o.Kind != history.List || o.Outcome != history.OK {
			continue
		}
		r.Checked++
		checkListRV(r, o, acked)
		claims[o.Resource] = append(claims[o.Resource], claim{rv: o.ResultRV, time: o.Complete, items: o.Items, kind: "wrong-list",
			what: sprintf("list op %d (%s, limit %d, client %d on %s, %s–%s)", o.ID, listOf(o), o.Limit, o.Client, o.Node, at(o.Invoke), at(o.Complete))})
	}
	for res, cs := range claims {
		checkClaims(r, tl.of(res), cs)
	}
	return r.finish()
}

// listOf names a list's resource and mode ("chaosobjects exact").
func listOf(o history.Op) string {
	if o.Resource == "" {
		return string(o.Mode)
	}
	return o.Resource + " " + string(o.Mode)
}

// checkListRV checks a list's resourceVersion and its pages'. A Most
// Recent list must not be older than a write acknowledged before it
// began, of any resource: its resourceVersion is the node's position in
// the one log every resource shares.
func checkListRV(r *Result, o history.Op, acked *ackIndex) {
	for i, p := range o.Pages {
		if p != o.ResultRV {
			r.add("pages-differ", o.Complete, "list op %d on %s: page %d at rv %d, page 1 at rv %d", o.ID, o.Node, i+1, p, o.ResultRV)
			break
		}
	}
	switch o.Mode {
	case history.Exact:
		if o.ResultRV != o.RequestedRV {
			r.add("exact-list-wrong-rv", o.Complete, "list op %d on %s asked for Exact rv %d and got rv %d", o.ID, o.Node, o.RequestedRV, o.ResultRV)
		}
	case history.NotOlderThan:
		if o.ResultRV < o.RequestedRV {
			r.add("list-too-old", o.Complete, "list op %d on %s asked for NotOlderThan rv %d and got rv %d", o.ID, o.Node, o.RequestedRV, o.ResultRV)
		}
	case history.MostRecent:
		if w, ok := acked.before(o.Invoke); ok && w.ResultRV > o.ResultRV {
			r.add("stale-list", o.Complete, "Most Recent %s list op %d on %s (invoked %s) at rv %d, but %s op %d of %s was acknowledged at rv %d at %s",
				o.Resource, o.ID, o.Node, at(o.Invoke), o.ResultRV, w.Kind, w.ID, w.KeyLabel(), w.ResultRV, at(w.Complete))
		}
	}
}
