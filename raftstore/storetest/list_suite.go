package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestList checks List at every consistency level through a node other
// than the writer, and that Exact lists (whole and paginated) at an old
// revision return the state of that revision, including keys deleted since
// and excluding keys created since, also while writers keep changing the
// prefix.
func RunTestList(t *testing.T, c *Cluster) {
	ctx := Context(t)
	a, b := twoNodes(t, c)

	t.Run("Current", func(t *testing.T) {
		prefix := newPrefix(t)
		want := model{}
		for i := range 5 {
			key := fmt.Sprintf("%s%02d", prefix, i)
			want[key] = mustCreate(ctx, t, a, key, object(key, "u", "v"))
		}
		last := want[fmt.Sprintf("%s%02d", prefix, 4)].Rev
		for _, tc := range []struct {
			name string
			opts raftstore.ReadOptions
		}{
			// Most Recent first: the later cases then need no waiting.
			{"MostRecent", raftstore.ReadOptions{}},
			{"NotOlderThan", raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: last}},
			{"Exact", raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: last}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				l := mustList(ctx, t, b, prefix, raftstore.ListOptions{ReadOptions: tc.opts})
				if l.Revision < last {
					t.Errorf("list served at revision %d, want >= %d", l.Revision, last)
				}
				if l.Continue != "" || l.RemainingItemCount != nil {
					t.Errorf("unpaginated list has continue %q remaining %v", l.Continue, l.RemainingItemCount)
				}
				checkSorted(t, l.Items)
				checkItems(t, tc.name, l.Items, want)
			})
		}
		t.Run("Any", func(t *testing.T) {
			waitApplied(t, last, b)
			l := mustList(ctx, t, b, prefix, raftstore.ListOptions{ReadOptions: raftstore.ReadOptions{Consistency: raftstore.Any}})
			checkItems(t, "any", l.Items, want)
		})
		t.Run("EmptyPrefix", func(t *testing.T) {
			l := mustList(ctx, t, b, prefix+"nothing/", raftstore.ListOptions{Limit: 2})
			if len(l.Items) != 0 || l.Continue != "" || l.RemainingItemCount != nil {
				t.Errorf("list of an empty prefix: %+v", l)
			}
		})
	})

	t.Run("Historical", func(t *testing.T) {
		prefix := newPrefix(t)
		past, rev := buildHistory(ctx, t, a, prefix, 12)
		now := changeEverything(ctx, t, a, prefix, past)
		checkHistory(ctx, t, []*raftstore.Store{b, a}, prefix, past, rev)
		l := mustList(ctx, t, b, prefix, raftstore.ListOptions{})
		checkItems(t, "current list", l.Items, now)
	})

	t.Run("HistoricalWhileWriting", func(t *testing.T) {
		prefix := newPrefix(t)
		past, rev := buildHistory(ctx, t, a, prefix, 12)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		defer wg.Wait() // also when a check below fails the test
		stopOnce := sync.OnceFunc(func() { close(stop) })
		defer stopOnce()
		for i, s := range c.Stores() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				churn(ctx, t, s, fmt.Sprintf("%sw%d-", prefix, i), past, 40, stop)
			}()
		}
		for range 5 {
			checkHistory(ctx, t, []*raftstore.Store{b, a}, prefix, past, rev)
		}
		stopOnce()
		wg.Wait()
		checkHistory(ctx, t, []*raftstore.Store{b, a}, prefix, past, rev)
	})
}

// buildHistory writes n keys under prefix through s, updates some and
// deletes some, and returns the resulting state and its revision.
func buildHistory(ctx context.Context, t *testing.T, s *raftstore.Store, prefix string, n int) (model, uint64) {
	t.Helper()
	m := model{}
	var rev uint64
	for i := range n {
		key := fmt.Sprintf("%sk%02d", prefix, i)
		o := mustCreate(ctx, t, s, key, object(key, "uid-"+key, "v0"))
		m[key], rev = o, o.Rev
	}
	for i := 0; i < n; i += 3 {
		key := fmt.Sprintf("%sk%02d", prefix, i)
		o := mustUpdate(ctx, t, s, key, object(key, "uid-"+key, "v1"), raftstore.Preconditions{})
		m[key], rev = o, o.Rev
	}
	for i := 1; i < n; i += 4 {
		key := fmt.Sprintf("%sk%02d", prefix, i)
		rev = mustDelete(ctx, t, s, key).Rev
		delete(m, key)
	}
	return m, rev
}

// changeEverything moves the prefix away from past: it deletes, updates
// and creates keys (some sorting between past's keys) and returns the new
// state.
func changeEverything(ctx context.Context, t *testing.T, s *raftstore.Store, prefix string, past model) model {
	t.Helper()
	now := past.clone()
	for i, key := range sortedKeys(past) {
		switch i % 3 {
		case 0:
			mustDelete(ctx, t, s, key)
			delete(now, key)
		case 1:
			now[key] = mustUpdate(ctx, t, s, key, object(key, "uid-"+key, "v2"), raftstore.Preconditions{})
		}
		nk := key + "-new"
		now[nk] = mustCreate(ctx, t, s, nk, object(nk, "uid-"+nk, "new"))
	}
	return now
}

// churn writes through s until stop is closed or n writes are done:
// creates under its own prefix, updates of past keys (through compare
// and swap, so concurrent churners conflict harmlessly) and deletes of its
// own keys. Errors are reported through t.Error.
func churn(ctx context.Context, t *testing.T, s *raftstore.Store, own string, past model, n int, stop <-chan struct{}) {
	keys := sortedKeys(past)
	for i := range n {
		select {
		case <-stop:
			return
		default:
		}
		var err error
		switch i % 3 {
		case 0:
			key := fmt.Sprintf("%s%03d", own, i)
			_, err = s.Create(ctx, key, object(key, "u", "churn"))
		case 1:
			key := keys[i%len(keys)]
			var cur raftstore.Object
			cur, err = s.Get(ctx, key, raftstore.ReadOptions{})
			if raftstore.IsNotFound(err) {
				err = nil
				continue
			}
			if err == nil {
				_, err = s.Update(ctx, key, object(key, "uid-"+key, fmt.Sprintf("churn-%d", i)), raftstore.Preconditions{ResourceVersion: cur.Rev})
			}
			if raftstore.IsConflict(err) || raftstore.IsNotFound(err) {
				err = nil
			}
		case 2:
			_, err = s.Delete(ctx, fmt.Sprintf("%s%03d", own, i-2), raftstore.Preconditions{})
		}
		if err != nil {
			t.Errorf("churn write %d through %s: %v", i, s.Name(), err)
			return
		}
	}
}

// checkHistory checks that Exact reads at rev see past: a whole list, a
// paginated list across the given nodes, and a Get of every key that
// existed then or exists now.
func checkHistory(ctx context.Context, t *testing.T, nodes []*raftstore.Store, prefix string, past model, rev uint64) {
	t.Helper()
	waitApplied(t, rev, nodes...)
	exact := raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: rev}
	for _, s := range nodes {
		l := mustList(ctx, t, s, prefix, raftstore.ListOptions{ReadOptions: exact})
		if l.Revision != rev {
			t.Errorf("exact list through %s at revision %d, want %d", s.Name(), l.Revision, rev)
		}
		checkItems(t, fmt.Sprintf("exact list through %s at %d", s.Name(), rev), l.Items, past)
	}
	for _, limit := range []int64{1, 4} {
		items, got := listAll(ctx, t, prefix, raftstore.ListOptions{ReadOptions: exact, Limit: limit}, nodes...)
		if got != rev {
			t.Errorf("paginated exact list at revision %d, want %d", got, rev)
		}
		checkItems(t, fmt.Sprintf("paginated exact list (limit %d) at %d", limit, rev), items, past)
	}
	cur := mustList(ctx, t, nodes[0], prefix, raftstore.ListOptions{})
	for _, o := range cur.Items {
		if _, ok := past[o.Key]; !ok {
			if g, err := nodes[0].Get(ctx, o.Key, exact); !raftstore.IsNotFound(err) {
				t.Errorf("exact get of %s (created after %d): %v %s, want NotFound", o.Key, rev, err, g.Data)
			}
		}
	}
	for key, want := range past {
		g := mustGet(ctx, t, nodes[len(nodes)-1], key, exact)
		if g.Rev != want.Rev || string(g.Data) != string(want.Data) {
			t.Errorf("exact get of %s at %d: rev %d %s, want rev %d %s", key, rev, g.Rev, g.Data, want.Rev, want.Data)
		}
	}
}
