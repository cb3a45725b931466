package registrytest

import (
	"slices"
	"sort"
	"strings"
)

// The history keeps every change at or above the compaction boundary, in
// revision order, each with the version it replaced (as raftstore's history records do).
// The state of a key at revision N is the Prev of its first change after
// N, or its current version when it has not changed since N.

// firstAfterLocked returns the index in s.history of the first change
// after rev.
func (s *Storage) firstAfterLocked(rev uint64) int {
	return sort.Search(len(s.history), func(i int) bool { return s.history[i].Rev > rev })
}

// objectAtLocked returns key's version as of revision at (0: current).
func (s *Storage) objectAtLocked(key string, at uint64) (Object, bool) {
	if at != 0 {
		for _, e := range s.history[s.firstAfterLocked(at):] {
			if e.Key != key {
				continue
			}
			if e.Prev == nil {
				return Object{}, false
			}
			return Object{Key: key, Rev: e.PrevRev, Data: e.Prev}, true
		}
	}
	o, ok := s.current[key]
	return o, ok
}

// rangeLocked returns, in key order, the objects whose keys start with
// prefix and sort after after ("" for all), as of revision at (0:
// current). A key deleted since at is among the keys changed since.
func (s *Storage) rangeLocked(prefix, after string, at uint64) []Object {
	var keys []string
	for k := range s.current {
		keys = append(keys, k)
	}
	if at != 0 {
		for _, e := range s.history[s.firstAfterLocked(at):] {
			keys = append(keys, e.Key)
		}
	}
	slices.Sort(keys)
	var out []Object
	for _, k := range slices.Compact(keys) {
		if !strings.HasPrefix(k, prefix) || k <= after {
			continue
		}
		if o, ok := s.objectAtLocked(k, at); ok {
			out = append(out, o)
		}
	}
	return out
}

// compactLocked drops the history below boundary.
func (s *Storage) compactLocked(boundary uint64) {
	if boundary <= s.compacted {
		return
	}
	i := sort.Search(len(s.history), func(i int) bool { return s.history[i].Rev >= boundary })
	s.history = slices.Clone(s.history[i:])
	s.compacted = boundary
}
