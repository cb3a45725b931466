package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/raftapi/raftapi/chaos/history"
)

// sweep reconstructs the state of the namespace at increasing
// resourceVersions from the timeline's base.
type sweep struct {
	tl    *timeline
	state map[string]history.Item
	at    int64
	next  int // index in tl.rvs of the first change not applied
}

func newSweep(tl *timeline) *sweep {
	s := &sweep{tl: tl, state: map[string]history.Item{}, at: tl.base}
	for k, v := range tl.baseState {
		s.state[k] = v
	}
	for s.next < len(tl.rvs) && tl.rvs[s.next] <= tl.base {
		s.next++
	}
	return s
}

// known reports whether the state at rv can be reconstructed.
func (s *sweep) known(rv int64) bool {
	return rv >= s.tl.base && rv <= s.tl.complete
}

// advance applies the changes up to rv (not below the last call's) and
// returns the state there.
func (s *sweep) advance(rv int64) map[string]history.Item {
	for s.next < len(s.tl.rvs) && s.tl.rvs[s.next] <= rv {
		at := s.tl.rvs[s.next]
		c := s.tl.changes[at]
		if c.Deleted {
			delete(s.state, c.Key)
		} else {
			s.state[c.Key] = history.Item{Key: c.Key, Value: c.Value, RV: at}
		}
		s.next++
	}
	s.at = rv
	return s.state
}

// diff describes how got differs from want; "" when they are equal.
func diff(got []history.Item, want map[string]history.Item) string {
	var out []string
	seen := map[string]bool{}
	for _, it := range got {
		w, ok := want[it.Key]
		switch {
		case seen[it.Key]:
			out = append(out, fmt.Sprintf("duplicate %s=%s@%d", it.Key, it.Value, it.RV))
		case !ok:
			out = append(out, fmt.Sprintf("extra %s=%s@%d", it.Key, it.Value, it.RV))
		case w != it:
			out = append(out, fmt.Sprintf("%s=%s@%d, want %s@%d", it.Key, it.Value, it.RV, w.Value, w.RV))
		}
		seen[it.Key] = true
	}
	for k, w := range want {
		if !seen[k] {
			out = append(out, fmt.Sprintf("missing %s=%s@%d", k, w.Value, w.RV))
		}
	}
	sort.Strings(out)
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return strings.Join(out, "; ")
}
