package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestConsistentRead checks the read consistency levels across nodes:
// a Most Recent read on any node sees every write acknowledged through
// any other node before it started; a Not older than read never serves
// state older than asked, waits for a revision written shortly after it
// started, and fails with TooLargeResourceVersion after the wait timeout
// (see ShortWaits) for a revision far ahead, as does an Exact read.
func RunTestConsistentRead(t *testing.T, c *Cluster) {
	ctx := Context(t)

	t.Run("MostRecentSeesAcknowledgedWrites", func(t *testing.T) {
		prefix := newPrefix(t)
		for _, p := range nodePairs(t, c) {
			t.Run(p.name, func(t *testing.T) {
				key := prefix + p.name
				o := mustCreate(ctx, t, p.writer, key, object(key, "u", "0"))
				for i := range 40 {
					if i > 0 {
						o = mustUpdate(ctx, t, p.writer, key, object(key, "u", fmt.Sprint(i)), raftstore.Preconditions{})
					}
					g := mustGet(ctx, t, p.reader, key, raftstore.ReadOptions{})
					if g.Rev != o.Rev {
						t.Fatalf("write %d acknowledged at revision %d through %s; Most Recent get through %s then returned revision %d",
							i, o.Rev, p.writer.Name(), p.reader.Name(), g.Rev)
					}
					if i%4 != 0 {
						continue
					}
					l := mustList(ctx, t, p.reader, prefix, raftstore.ListOptions{})
					if l.Revision < o.Rev {
						t.Fatalf("Most Recent list through %s at revision %d, write acknowledged at %d", p.reader.Name(), l.Revision, o.Rev)
					}
					if !containsRev(l.Items, key, o.Rev) {
						t.Fatalf("Most Recent list through %s at revision %d lacks %s at %d", p.reader.Name(), l.Revision, key, o.Rev)
					}
				}
			})
		}
	})

	t.Run("AnyReadOnLeaderSeesItsWrites", func(t *testing.T) {
		// The leader applies a write before it answers; its own state
		// shows it to every later read at once, even an Any read and
		// even while the FSM batches its commits (fsm.WithCommitDelay).
		prefix := newPrefix(t)
		leader := c.Leader()
		key := prefix + "k"
		any := raftstore.ReadOptions{Consistency: raftstore.Any}
		o := mustCreate(ctx, t, leader, key, object(key, "u", "0"))
		for i := range 60 {
			switch {
			case i == 59:
				o = mustDelete(ctx, t, leader, key)
			case i > 0:
				o = mustUpdate(ctx, t, leader, key, object(key, "u", fmt.Sprint(i)), raftstore.Preconditions{})
			}
			if rev := leader.Revision(); rev < o.Rev {
				t.Fatalf("write %d answered at %d; Revision then %d", i, o.Rev, rev)
			}
			l := mustList(ctx, t, leader, prefix, raftstore.ListOptions{ReadOptions: any})
			if i == 59 {
				if _, err := leader.Get(ctx, key, any); !raftstore.IsNotFound(err) {
					t.Fatalf("Any get after the delete answered: %v", err)
				}
				if len(l.Items) != 0 {
					t.Fatalf("Any list after the delete holds %d items", len(l.Items))
				}
				continue
			}
			if g := mustGet(ctx, t, leader, key, any); g.Rev != o.Rev {
				t.Fatalf("write %d answered at %d; Any get then returned %d", i, o.Rev, g.Rev)
			}
			if !containsRev(l.Items, key, o.Rev) {
				t.Fatalf("write %d answered at %d; Any list at %d lacks it", i, o.Rev, l.Revision)
			}
		}
	})

	t.Run("NotOlderThan", func(t *testing.T) {
		prefix := newPrefix(t)
		for _, p := range nodePairs(t, c) {
			t.Run(p.name, func(t *testing.T) {
				for i := range 10 {
					key := fmt.Sprintf("%s%s-%d", prefix, p.name, i)
					o := mustCreate(ctx, t, p.writer, key, object(key, "u", "v"))
					checkNotOlderThan(ctx, t, p.reader, prefix, key, o.Rev)
					// A revision learnt from another node's list.
					l := mustList(ctx, t, p.writer, prefix, raftstore.ListOptions{Limit: 1})
					checkNotOlderThan(ctx, t, p.reader, prefix, key, l.Revision)
				}
			})
		}
	})

	t.Run("NotOlderThanWaitsForWrite", func(t *testing.T) {
		prefix := newPrefix(t)
		for _, p := range nodePairs(t, c) {
			t.Run(p.name, func(t *testing.T) {
				waitForLaterWrite(ctx, t, c.Leader(), p, prefix+p.name)
			})
		}
	})

	t.Run("TooLargeResourceVersion", func(t *testing.T) {
		prefix := newPrefix(t)
		_, b := twoNodes(t, c)
		far := c.Leader().Revision() + 1_000_000
		for _, tc := range []struct {
			name string
			read func(raftstore.ReadOptions) error
			opts raftstore.ReadOptions
		}{
			{"GetNotOlderThan", getter(ctx, b, prefix+"x"), raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: far}},
			{"ListNotOlderThan", lister(ctx, b, prefix), raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: far}},
			{"GetExact", getter(ctx, b, prefix+"x"), raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: far}},
			{"ListExact", lister(ctx, b, prefix), raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: far}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				err := tc.read(tc.opts)
				elapsed := time.Since(start)
				if !raftstore.IsTooLargeResourceVersion(err) {
					t.Fatalf("read at revision %d: %v, want TooLargeResourceVersion", far, err)
				}
				if elapsed < WaitTimeout {
					t.Errorf("TooLargeResourceVersion after %v, before the wait timeout %v", elapsed, WaitTimeout)
				}
				if elapsed > eventTimeout {
					t.Errorf("TooLargeResourceVersion only after %v", elapsed)
				}
				e := storeError(t, err)
				if e.Rev != far || e.RetryAfter <= 0 {
					t.Errorf("error carries revision %d retry-after %v, want %d and a positive hint", e.Rev, e.RetryAfter, far)
				}
			})
		}
	})
}

func getter(ctx context.Context, s *raftstore.Store, key string) func(raftstore.ReadOptions) error {
	return func(o raftstore.ReadOptions) error { _, err := s.Get(ctx, key, o); return err }
}

func lister(ctx context.Context, s *raftstore.Store, prefix string) func(raftstore.ReadOptions) error {
	return func(o raftstore.ReadOptions) error {
		_, err := s.List(ctx, prefix, raftstore.ListOptions{ReadOptions: o})
		return err
	}
}

func containsRev(items []raftstore.Object, key string, rev uint64) bool {
	for _, o := range items {
		if o.Key == key {
			return o.Rev == rev
		}
	}
	return false
}

// checkNotOlderThan reads key and lists prefix through s not older than
// rev, and fails if either serves older state.
func checkNotOlderThan(ctx context.Context, t *testing.T, s *raftstore.Store, prefix, key string, rev uint64) {
	t.Helper()
	opts := raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: rev}
	g := mustGet(ctx, t, s, key, opts)
	l := mustList(ctx, t, s, prefix, raftstore.ListOptions{ReadOptions: opts})
	if l.Revision < rev {
		t.Fatalf("list through %s not older than %d served at %d", s.Name(), rev, l.Revision)
	}
	if !containsRev(l.Items, key, g.Rev) {
		t.Fatalf("list through %s at %d lacks %s at %d", s.Name(), l.Revision, key, g.Rev)
	}
}

// waitForLaterWrite starts a Not older than list on p.reader for the
// revision after the leader's current one, then writes through p.writer:
// the list must wait for the write and see it. The write must reach the
// reader within WaitTimeout, so a timed-out attempt is retried a few
// times.
func waitForLaterWrite(ctx context.Context, t *testing.T, leader *raftstore.Store, p nodePair, key string) {
	t.Helper()
	for attempt := range 5 {
		k := fmt.Sprintf("%s-%d", key, attempt)
		next := leader.Revision() + 1
		opts := raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: next}
		type result struct {
			list *raftstore.ListResult
			err  error
		}
		done := make(chan result, 1)
		go func() {
			l, err := p.reader.List(ctx, k, raftstore.ListOptions{ReadOptions: opts})
			done <- result{l, err}
		}()
		start := time.Now()
		o := mustCreate(ctx, t, p.writer, k, object(k, "u", "v"))
		took := time.Since(start)
		r := <-done
		if raftstore.IsTooLargeResourceVersion(r.err) {
			// On a loaded machine the write may commit, or reach the
			// reader, only after WaitTimeout; a store that never wakes its
			// waiters fails every attempt.
			t.Logf("attempt %d: write took %v, reader timed out: %v; retrying", attempt, took, r.err)
			continue
		}
		if r.err != nil {
			t.Fatalf("list not older than %d through %s, written at %d in %v: %v", next, p.reader.Name(), o.Rev, took, r.err)
		}
		if r.list.Revision < next {
			t.Fatalf("list not older than %d served at %d", next, r.list.Revision)
		}
		if r.list.Revision >= o.Rev && !containsRev(r.list.Items, k, o.Rev) {
			t.Fatalf("list at %d lacks %s written at %d", r.list.Revision, k, o.Rev)
		}
		return
	}
	t.Fatalf("a Not older than read timed out in every attempt, although the revision was written right after it started")
}
