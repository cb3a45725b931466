package check

import (
	"sort"

	"github.com/raftapi/raftapi/chaos/history"
)

// ackIndex answers: of the writes (of any resource) acknowledged before
// time t, which has the highest resourceVersion?
type ackIndex struct {
	byComplete []history.Op // acknowledged writes with an rv, by complete time
	best       []int        // best[i]: index of the highest rv in byComplete[:i+1]
}

func newAckIndex(h *history.History) *ackIndex {
	a := &ackIndex{}
	for _, o := range h.Ops {
		if o.Sets() && o.Outcome == history.OK && o.ResultRV > 0 {
			a.byComplete = append(a.byComplete, o)
		}
	}
	sort.Slice(a.byComplete, func(i, j int) bool { return a.byComplete[i].Complete < a.byComplete[j].Complete })
	for i, o := range a.byComplete {
		b := i
		if i > 0 && a.byComplete[a.best[i-1]].ResultRV > o.ResultRV {
			b = a.best[i-1]
		}
		a.best = append(a.best, b)
	}
	return a
}

// before returns the acknowledged write with the highest resourceVersion
// among those completed before t.
func (a *ackIndex) before(t int64) (history.Op, bool) {
	i := sort.Search(len(a.byComplete), func(i int) bool { return a.byComplete[i].Complete >= t })
	if i == 0 {
		return history.Op{}, false
	}
	return a.byComplete[a.best[i-1]], true
}
