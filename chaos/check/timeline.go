package check

import (
	"fmt"
	"sort"

	"github.com/raftapi/raftapi/chaos/history"
)

// change is what the log entry at one resourceVersion did to the
// namespace under test, as the history tells it.
type change struct {
	// Resource is the collection of the object changed (Op.Resource).
	Resource string
	Key      string
	Value    string
	Deleted  bool
	// Source says who told: a watcher's event, a write's response or a read.
	Source string
	// Watched is set when a watcher delivered it as an event.
	Watched bool
}

// conflict is two sources disagreeing about one resourceVersion.
type conflict struct {
	RV       int64
	Time     int64
	Old, New change
}

// timeline is the merged history: every change any watcher, write or
// read saw, by resourceVersion, and how far it is known to be complete.
//
// A resourceVersion is an index of the one raft log every resource is
// stored in, so the timeline newTimeline returns merges every resource:
// one resourceVersion is one change of one object, whichever its
// resource, and a disagreement across resources is a conflict too. The
// watch and list checks work on one resource's view of it (of): its
// changes only, complete as far as that resource's watchers saw.
type timeline struct {
	changes   map[int64]change
	rvs       []int64 // sorted keys of changes
	conflicts []conflict
	// base is the first resourceVersion whose state is known (a watcher's
	// initial list), baseState that state; complete is the highest
	// resourceVersion up to which watchers saw every change.
	base      int64
	baseState map[string]history.Item
	complete  int64
	// views holds each resource's timeline (merged timeline only).
	views map[string]*timeline
}

// newTimeline merges what every watcher, write and read of h saw.
func newTimeline(h *history.History) *timeline {
	tl := &timeline{changes: map[int64]change{}}
	for _, e := range h.Events {
		if e.IsChange() && !e.Initial {
			tl.note(e.RV, e.Time, change{Resource: e.Resource, Key: e.Key, Value: e.Value, Deleted: e.Type == history.Deleted,
				Source: fmt.Sprintf("watcher %d event %s at %s", e.Watcher, e.Type, at(e.Time)), Watched: true})
		}
	}
	for _, o := range h.Ops {
		tl.noteOp(o)
	}
	for _, e := range h.Events {
		if e.Initial {
			tl.note(e.RV, e.Time, change{Resource: e.Resource, Key: e.Key, Value: e.Value, Source: fmt.Sprintf("watcher %d initial event", e.Watcher)})
		}
		for _, it := range e.Items {
			tl.note(it.RV, e.Time, change{Resource: e.Resource, Key: it.Key, Value: it.Value, Source: fmt.Sprintf("watcher %d relist at rv %d", e.Watcher, e.RV)})
		}
	}
	for rv := range tl.changes {
		tl.rvs = append(tl.rvs, rv)
	}
	sort.Slice(tl.rvs, func(i, j int) bool { return tl.rvs[i] < tl.rvs[j] })
	tl.views = map[string]*timeline{}
	for _, res := range h.Resources() {
		tl.views[res] = tl.view(h, res)
	}
	return tl
}

// view returns resource's timeline: its changes, and how far its watchers
// saw every one of them.
func (tl *timeline) view(h *history.History, resource string) *timeline {
	v := &timeline{changes: map[int64]change{}}
	for _, rv := range tl.rvs {
		if c := tl.changes[rv]; c.Resource == resource {
			v.changes[rv] = c
			v.rvs = append(v.rvs, rv)
		}
	}
	v.cover(h, resource)
	return v
}

// of returns resource's view of the merged timeline.
func (tl *timeline) of(resource string) *timeline {
	if v, ok := tl.views[resource]; ok {
		return v
	}
	return &timeline{changes: map[int64]change{}}
}

// noteOp records what an operation's result says about the log.
func (tl *timeline) noteOp(o history.Op) {
	if o.Outcome != history.OK {
		return
	}
	src := fmt.Sprintf("%s op %d (client %d, %s) at %s", o.Kind, o.ID, o.Client, o.Node, at(o.Complete))
	switch {
	case o.Sets():
		tl.note(o.ResultRV, o.Complete, change{Resource: o.Resource, Key: o.Key, Value: o.Value, Source: src})
	case o.Kind == history.Get:
		if o.Found {
			tl.note(o.ResultRV, o.Complete, change{Resource: o.Resource, Key: o.Key, Value: o.Value, Source: src})
		}
	case o.Kind == history.List:
		for _, it := range o.Items {
			tl.note(it.RV, o.Complete, change{Resource: o.Resource, Key: it.Key, Value: it.Value, Source: src})
		}
	}
}

// note adds one source's account of the change at rv, remembering a
// disagreement with an earlier account.
func (tl *timeline) note(rv, t int64, c change) {
	if rv <= 0 {
		return
	}
	old, ok := tl.changes[rv]
	if !ok {
		tl.changes[rv] = c
		return
	}
	if old.Resource != c.Resource || old.Key != c.Key || old.Value != c.Value || old.Deleted != c.Deleted {
		tl.conflicts = append(tl.conflicts, conflict{RV: rv, Time: t, Old: old, New: c})
		return
	}
	if c.Watched && !old.Watched {
		tl.changes[rv] = c
	}
}

// between returns the resourceVersions of changes in (lo, hi).
func (tl *timeline) between(lo, hi int64) []int64 {
	i := sort.Search(len(tl.rvs), func(i int) bool { return tl.rvs[i] > lo })
	var out []int64
	for ; i < len(tl.rvs) && tl.rvs[i] < hi; i++ {
		out = append(out, tl.rvs[i])
	}
	return out
}

func (c change) String() string {
	if c.Deleted {
		return fmt.Sprintf("DELETED %s (%s)", history.KeyLabel(c.Resource, c.Key), c.Source)
	}
	return fmt.Sprintf("%s=%s (%s)", history.KeyLabel(c.Resource, c.Key), c.Value, c.Source)
}
