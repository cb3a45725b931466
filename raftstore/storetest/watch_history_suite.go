package storetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestWatchHistory checks that recursive watches on every node, while
// writers on every node change keys concurrently, deliver exactly the
// acknowledged writes under the prefix: in revision order, each once, none
// missing, with the right types and objects; and that a watch resumed from
// any delivered revision, on any node, delivers exactly the events after
// it.
func RunTestWatchHistory(t *testing.T, c *Cluster) {
	ctx := Context(t)
	prefix := newPrefix(t)
	base := c.Leader().Revision()
	stores := c.Stores()
	var watches []*raftstore.Watch
	for _, s := range stores {
		watches = append(watches, mustWatch(ctx, t, s, prefix, raftstore.WatchOptions{Revision: base, Recursive: true}))
	}
	const writers, ops = 3, 20
	done := make(chan writeResult, 1)
	go func() { done <- concurrentWrites(ctx, stores, prefix, writers, ops) }()
	// Watches opened from base while the writes go on replay history while
	// live events arrive.
	total := len(stores) * writers * ops
	leader := c.Leader()
	for i := 1; i <= 3; i++ {
		target := base + uint64(i*total/4)
		waitFor(t, fmt.Sprintf("revision %d", target), func() bool { return leader.Revision() >= target })
		watches = append(watches, mustWatch(ctx, t, stores[i%len(stores)], prefix, raftstore.WatchOptions{Revision: base, Recursive: true}))
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	acked := r.acked
	// A watch opened from base after the writes replays them from history.
	watches = append(watches, mustWatch(ctx, t, stores[len(stores)-1], prefix, raftstore.WatchOptions{Revision: base, Recursive: true}))
	t.Logf("%d acknowledged writes through %d nodes", len(acked), len(stores))

	var delivered []raftstore.WatchEvent
	for i, w := range watches {
		evs := collect(t, w, len(acked))
		checkStreamOrder(t, fmt.Sprintf("watch %d", i), evs)
		checkChanges(t, fmt.Sprintf("watch %d against the acknowledged writes", i), evs, acked)
		delivered = evs
	}

	// Resume from delivered revisions, each on another node.
	resumed := map[int]*raftstore.Watch{}
	for j, i := range []int{0, 1, len(delivered) / 3, len(delivered) / 2, len(delivered) - 2, len(delivered) - 1} {
		s := stores[j%len(stores)]
		resumed[i] = mustWatch(ctx, t, s, prefix, raftstore.WatchOptions{Revision: delivered[i].Rev, Recursive: true})
	}
	for _, i := range sortedInts(resumed) {
		what := fmt.Sprintf("watch resumed from %d (event %d)", delivered[i].Rev, i)
		checkChanges(t, what, collect(t, resumed[i], len(acked)-i-1), acked[i+1:])
	}

	// Nothing else is pending on any of them: the next event is a new write.
	last := mustCreate(ctx, t, stores[0], prefix+"sentinel", object("sentinel", "u", "v"))
	next := []change{{raftstore.Added, last.Key, last.Rev, last.Data}}
	for i, w := range watches {
		checkChanges(t, fmt.Sprintf("watch %d after the writes", i), collect(t, w, 1), next)
	}
	for _, i := range sortedInts(resumed) {
		checkChanges(t, fmt.Sprintf("watch resumed at event %d after the writes", i), collect(t, resumed[i], 1), next)
	}
}

func sortedInts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// writeResult is what concurrentWrites returns.
type writeResult struct {
	acked []change
	err   error
}

// concurrentWrites runs writers goroutines per node, each doing ops
// writes on keys of its own under prefix (create, update, update, delete
// in turn), and returns every acknowledged write in revision order, or
// the first error.
func concurrentWrites(ctx context.Context, nodes []*raftstore.Store, prefix string, writers, ops int) writeResult {
	var mu sync.Mutex
	var r writeResult
	var wg sync.WaitGroup
	for n, s := range nodes {
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine, err := writeCycle(ctx, s, fmt.Sprintf("%sn%d-w%d-", prefix, n, w), ops)
				mu.Lock()
				defer mu.Unlock()
				r.acked = append(r.acked, mine...)
				if err != nil && r.err == nil {
					r.err = fmt.Errorf("writer %d through %s: %w", w, s.Name(), err)
				}
			}()
		}
	}
	wg.Wait()
	slices.SortFunc(r.acked, func(x, y change) int { return cmp.Compare(x.Rev, y.Rev) })
	for i := 1; i < len(r.acked) && r.err == nil; i++ {
		if r.acked[i].Rev == r.acked[i-1].Rev {
			r.err = fmt.Errorf("two acknowledged writes at revision %d: %v and %v", r.acked[i].Rev, r.acked[i-1], r.acked[i])
		}
	}
	return r
}

// writeCycle creates, updates twice and deletes keys with the given
// prefix, ops writes in all, and returns the acknowledged ones.
func writeCycle(ctx context.Context, s *raftstore.Store, prefix string, ops int) ([]change, error) {
	var out []change
	var key string
	for i := range ops {
		var o raftstore.Object
		var err error
		var typ raftstore.WatchEventType
		switch i % 4 {
		case 0:
			key = fmt.Sprintf("%s%03d", prefix, i)
			o, err = s.Create(ctx, key, object(key, "uid-"+key, "v0"))
			typ = raftstore.Added
		case 1, 2:
			o, err = s.Update(ctx, key, object(key, "uid-"+key, fmt.Sprint(i)), raftstore.Preconditions{})
			typ = raftstore.Modified
		case 3:
			o, err = s.Delete(ctx, key, raftstore.Preconditions{UID: "uid-" + key})
			typ = raftstore.Deleted
		}
		if err != nil {
			return out, fmt.Errorf("write %d on %s: %w", i, key, err)
		}
		out = append(out, change{typ, key, o.Rev, o.Data})
	}
	return out, nil
}
