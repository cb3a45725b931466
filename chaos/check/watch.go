package check

import (
	"github.com/raftapi/raftapi/chaos/history"
)

// Watch checks every watcher's stream against the merged history of the
// resource it watches; an event at a resourceVersion that any source, of
// any resource, tells differently is inconsistent.
func Watch(h *history.History, tl *timeline) Result {
	r := &Result{Checker: "watch"}
	claims := map[string][]claim{}
	for w, evs := range h.WatcherEvents() {
		res := ""
		if len(evs) > 0 {
			res = evs[0].Resource
		}
		ws := &watchState{r: r, tl: tl.of(res), w: w}
		for _, e := range evs {
			ws.step(e)
			r.Checked++
		}
		claims[res] = append(claims[res], ws.claims...)
	}
	for _, c := range tl.conflicts {
		if c.Old.Watched || c.New.Watched {
			r.add("inconsistent-event", c.Time, "rv %d is %s and %s", c.RV, c.Old, c.New)
		}
	}
	for res, cs := range claims {
		checkClaims(r, tl.of(res), cs)
	}
	return r.finish()
}

// watchState follows one watcher's stream.
type watchState struct {
	r  *Result
	tl *timeline
	w  int
	// last is the highest resourceVersion the stream vouched for: every
	// change up to it must have been delivered. floor is the last
	// bookmark's.
	last, floor int64
	seen        map[int64]bool
	anchored    bool
	// initial collects the initial events of a sendInitialEvents watch.
	initial    map[string]history.Item
	initialMax int64
	claims     []claim
}

func (ws *watchState) step(e history.WatchEvent) {
	switch {
	case e.Type == history.Relist:
		ws.anchor(e.RV)
		ws.claims = append(ws.claims, claim{rv: e.RV, time: e.Time, items: e.Items, kind: "wrong-relist",
			what: sprintf("watcher %d relist at rv %d on %s", ws.w, e.RV, e.Node)})
	case e.Type == history.Start && e.Mode == history.WatchInitialEvents && !isResume(e):
		ws.anchored, ws.initial, ws.initialMax = false, map[string]history.Item{}, 0
	case e.Initial:
		ws.initialEvent(e)
	case e.InitialEnd:
		ws.initialEnd(e)
	case e.Type == history.Bookmark:
		ws.bookmark(e)
	case e.IsChange():
		ws.change(e)
	case e.Type == history.Stop:
		ws.stop(e)
	}
}

func (ws *watchState) anchor(rv int64) {
	ws.last, ws.floor, ws.seen, ws.anchored = rv, rv, map[int64]bool{}, true
}

func (ws *watchState) initialEvent(e history.WatchEvent) {
	if ws.initial == nil {
		ws.r.add("initial-event-outside-initial-phase", e.Time, "watcher %d got initial ADDED %s@%d on %s outside a sendInitialEvents start", ws.w, history.KeyLabel(e.Resource, e.Key), e.RV, e.Node)
		return
	}
	ws.initial[e.Key] = history.Item{Key: e.Key, Value: e.Value, RV: e.RV}
	ws.initialMax = max(ws.initialMax, e.RV)
}

func (ws *watchState) initialEnd(e history.WatchEvent) {
	if ws.initial == nil {
		ws.r.add("unexpected-initial-events-end", e.Time, "watcher %d got an initial-events-end bookmark at rv %d on %s without asking for initial events", ws.w, e.RV, e.Node)
		return
	}
	if ws.initialMax > e.RV {
		ws.r.add("initial-events-end-too-early", e.Time, "watcher %d: initial-events-end bookmark at rv %d on %s after an initial event at rv %d", ws.w, e.RV, e.Node, ws.initialMax)
	}
	items := make([]history.Item, 0, len(ws.initial))
	for _, it := range ws.initial {
		items = append(items, it)
	}
	ws.claims = append(ws.claims, claim{rv: e.RV, time: e.Time, items: items, kind: "wrong-initial-events",
		what: sprintf("watcher %d initial events up to the initial-events-end bookmark at rv %d on %s", ws.w, e.RV, e.Node)})
	ws.initial = nil
	ws.anchor(e.RV)
}

func (ws *watchState) bookmark(e history.WatchEvent) {
	if !ws.anchored {
		return
	}
	if e.RV < ws.last {
		ws.r.add("bookmark-behind", e.Time, "watcher %d: bookmark at rv %d on %s after an event at rv %d", ws.w, e.RV, e.Node, ws.last)
		return
	}
	ws.gaps(e, e.RV+1)
	ws.last, ws.floor = e.RV, e.RV
}

func (ws *watchState) change(e history.WatchEvent) {
	if !ws.anchored {
		ws.r.add("event-before-initial-events-end", e.Time, "watcher %d: %s %s@%d on %s before the initial-events-end bookmark", ws.w, e.Type, history.KeyLabel(e.Resource, e.Key), e.RV, e.Node)
		return
	}
	switch {
	case ws.seen[e.RV]:
		ws.r.add("duplicate-event", e.Time, "watcher %d: %s %s@%d on %s delivered twice", ws.w, e.Type, history.KeyLabel(e.Resource, e.Key), e.RV, e.Node)
		return
	case e.RV <= ws.floor:
		ws.r.add("event-below-bookmark", e.Time, "watcher %d: %s %s@%d on %s after a bookmark or start at rv %d", ws.w, e.Type, history.KeyLabel(e.Resource, e.Key), e.RV, e.Node, ws.floor)
	case e.RV < ws.last:
		ws.r.add("reordered-event", e.Time, "watcher %d: %s %s@%d on %s after an event at rv %d", ws.w, e.Type, history.KeyLabel(e.Resource, e.Key), e.RV, e.Node, ws.last)
	default:
		ws.gaps(e, e.RV)
	}
	ws.seen[e.RV] = true
	ws.last = max(ws.last, e.RV)
}

// gaps reports every change in (last, upTo) the watcher never got.
func (ws *watchState) gaps(e history.WatchEvent, upTo int64) {
	for _, rv := range ws.tl.between(ws.last, upTo) {
		ws.r.add("missed-event", e.Time, "watcher %d on %s went from rv %d to %s at rv %d, skipping rv %d: %s",
			ws.w, e.Node, ws.last, e.Type, e.RV, rv, ws.tl.changes[rv])
	}
}

// stop checks that the watcher caught up with the end of the history.
func (ws *watchState) stop(e history.WatchEvent) {
	if !ws.anchored {
		return
	}
	if missing := ws.tl.between(ws.last, e.RV+1); len(missing) > 0 {
		ws.r.add("watch-stalled", e.Time, "watcher %d stopped at rv %d, short of rv %d: %d changes never delivered, the first at rv %d: %s",
			ws.w, ws.last, e.RV, len(missing), missing[0], ws.tl.changes[missing[0]])
	}
}
