package check

import (
	"sort"

	"github.com/raftapi/raftapi/chaos/history"
)

// span is a stretch (From, To] of resourceVersions one watcher saw every
// change of, from a state it knew at From.
type span struct {
	From, To int64
	State    map[string]history.Item
}

// spans returns the stretches of every watcher of resource: each starts
// at an anchor (a relist, or the initial-events-end bookmark) and ends at
// the last resourceVersion the watcher got before its next anchor.
func spans(h *history.History, resource string) []span {
	var out []span
	for _, evs := range h.WatcherEvents() {
		if len(evs) == 0 || evs[0].Resource != resource {
			continue
		}
		var cur *span
		var initial map[string]history.Item
		for _, e := range evs {
			switch {
			case e.Type == history.Relist:
				out = appendSpan(out, cur)
				cur = &span{From: e.RV, To: e.RV, State: itemMap(e.Items)}
			case e.Type == history.Start && e.Mode == history.WatchInitialEvents && !isResume(e):
				out = appendSpan(out, cur)
				cur, initial = nil, map[string]history.Item{}
			case e.Initial && initial != nil:
				initial[e.Key] = history.Item{Key: e.Key, Value: e.Value, RV: e.RV}
			case e.InitialEnd:
				cur = &span{From: e.RV, To: e.RV, State: initial}
				initial = nil
			case cur != nil && e.RV > cur.To && (e.IsChange() || e.Type == history.Bookmark):
				cur.To = e.RV
			}
		}
		out = appendSpan(out, cur)
	}
	return out
}

func appendSpan(out []span, s *span) []span {
	if s == nil {
		return out
	}
	return append(out, *s)
}

// isResume reports whether a START marker resumed from a resourceVersion.
func isResume(e history.WatchEvent) bool { return e.RV > 0 }

// cover finds the base state of resource and how far its watchers saw
// every change.
func (tl *timeline) cover(h *history.History, resource string) {
	ss := spans(h, resource)
	if len(ss) == 0 {
		return
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].From < ss[j].From })
	tl.base, tl.baseState, tl.complete = ss[0].From, ss[0].State, ss[0].To
	for _, s := range ss[1:] {
		if s.From > tl.complete {
			break
		}
		tl.complete = max(tl.complete, s.To)
	}
}

func itemMap(items []history.Item) map[string]history.Item {
	m := make(map[string]history.Item, len(items))
	for _, it := range items {
		m[it.Key] = it
	}
	return m
}
