package check

import (
	"fmt"
	"sort"

	"github.com/raftapi/raftapi/chaos/history"
)

// claim is a read's account of the whole namespace at one
// resourceVersion: a list, a relist, a watch's initial events.
type claim struct {
	rv    int64
	time  int64
	items []history.Item
	kind  string // the anomaly kind when it is wrong
	what  string // the read, for the message
}

// checkClaims compares each claim with the state reconstructed at its
// resourceVersion; claims beyond what the history covers are skipped.
func checkClaims(r *Result, tl *timeline, claims []claim) {
	sort.SliceStable(claims, func(i, j int) bool { return claims[i].rv < claims[j].rv })
	s := newSweep(tl)
	for _, c := range claims {
		if !s.known(c.rv) {
			r.Skipped++
			continue
		}
		r.Checked++
		if d := diff(c.items, s.advance(c.rv)); d != "" {
			r.add(c.kind, c.time, "%s differs from the state at rv %d: %s", c.what, c.rv, d)
		}
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
