package registrytest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// history writes, in order: /a v1 (1), /b v1 (2), /a v2 (3), delete /b
// (4), /c v1 (5).
func history(t *testing.T, s *Storage) {
	t.Helper()
	mustCreate(t, s, "/a", object("a", "u", "v1"))
	mustCreate(t, s, "/b", object("b", "u", "v1"))
	mustUpdate(t, s, "/a", object("a", "u", "v2"))
	mustDelete(t, s, "/b")
	mustCreate(t, s, "/c", object("c", "u", "v1"))
}

func TestGet(t *testing.T) {
	s := New()
	history(t, s)
	type want struct {
		rev   uint64
		value string
		code  raftstore.ErrorCode
		erRev uint64
	}
	for name, tc := range map[string]struct {
		key  string
		opts registry.ReadOptions
		want want
	}{
		"MostRecent":           {"/a", registry.ReadOptions{}, want{rev: 3, value: "v2"}},
		"Any":                  {"/a", registry.ReadOptions{Consistency: raftstore.Any}, want{rev: 3, value: "v2"}},
		"NotOlderThanPast":     {"/a", registry.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: 1}, want{rev: 3, value: "v2"}},
		"NotOlderThanCurrent":  {"/a", registry.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: 5}, want{rev: 3, value: "v2"}},
		"NotOlderThanFuture":   {"/a", registry.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: 6}, want{code: raftstore.ErrCodeTooLargeResourceVersion, erRev: 6}},
		"ExactFirst":           {"/a", exact(1), want{rev: 1, value: "v1"}},
		"ExactUnchangedSince":  {"/a", exact(2), want{rev: 1, value: "v1"}},
		"ExactAfterUpdate":     {"/a", exact(3), want{rev: 3, value: "v2"}},
		"ExactCurrent":         {"/a", exact(5), want{rev: 3, value: "v2"}},
		"ExactFuture":          {"/a", exact(6), want{code: raftstore.ErrCodeTooLargeResourceVersion, erRev: 6}},
		"ExactZero":            {"/a", exact(0), want{code: raftstore.ErrCodeBadRequest}},
		"ExactBeforeCreate":    {"/b", exact(1), want{code: raftstore.ErrCodeNotFound, erRev: 1}},
		"ExactBeforeDelete":    {"/b", exact(3), want{rev: 2, value: "v1"}},
		"ExactAtDelete":        {"/b", exact(4), want{code: raftstore.ErrCodeNotFound, erRev: 4}},
		"MostRecentDeleted":    {"/b", registry.ReadOptions{}, want{code: raftstore.ErrCodeNotFound, erRev: 5}},
		"ExactCreatedAtLatest": {"/c", exact(4), want{code: raftstore.ErrCodeNotFound, erRev: 4}},
		"NeverExisted":         {"/zz", registry.ReadOptions{Consistency: raftstore.Any}, want{code: raftstore.ErrCodeNotFound, erRev: 5}},
	} {
		t.Run(name, func(t *testing.T) {
			o, err := s.Get(context.Background(), tc.key, tc.opts)
			if tc.want.code == 0 {
				if err != nil {
					t.Fatalf("get: %v", err)
				}
				checkObject(t, "get", o, tc.key, tc.want.rev, tc.want.value)
				return
			}
			key := tc.key
			if tc.want.code != raftstore.ErrCodeNotFound {
				key = ""
			}
			checkError(t, "get", err, tc.want.code, key, tc.want.erRev)
		})
	}
}

func TestTooLargeResourceVersion(t *testing.T) {
	s := New()
	_, err := s.Get(context.Background(), "/a", registry.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: 3})
	e := checkError(t, "get", err, raftstore.ErrCodeTooLargeResourceVersion, "", 3)
	if e.RetryAfter <= 0 {
		t.Errorf("TooLargeResourceVersion without RetryAfter")
	}
	_, err = s.List(context.Background(), "/", registry.StoreListOptions{ReadOptions: exact(3)})
	checkError(t, "list", err, raftstore.ErrCodeTooLargeResourceVersion, "", 3)
}

func TestReadWaitsForRevision(t *testing.T) {
	s := NewWithOptions(Options{WaitTimeout: time.Hour})
	type result struct {
		o   Object
		err error
	}
	done := make(chan result, 1)
	go func() {
		o, err := s.Get(testContext(t), "/a", registry.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: 1})
		done <- result{o, err}
	}()
	mustCreate(t, s, "/a", object("a", "u", "v1"))
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("get: %v", r.err)
		}
		checkObject(t, "get", r.o, "/a", 1, "v1")
	case <-time.After(deadline):
		t.Fatalf("a read of revision 1 did not return after the write")
	}
}

func TestReadWaitHonoursContext(t *testing.T) {
	s := NewWithOptions(Options{WaitTimeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Get(ctx, "/a", exact(1))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("get on a cancelled context: %v, want context.Canceled", err)
	}
}

func TestCompact(t *testing.T) {
	s := New()
	history(t, s)
	if err := s.Compact(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	if s.Compacted() != 3 {
		t.Fatalf("compacted at %d, want 3", s.Compacted())
	}
	for _, rev := range []uint64{1, 2} {
		_, err := s.Get(context.Background(), "/a", exact(rev))
		checkError(t, fmt.Sprintf("get at %d", rev), err, raftstore.ErrCodeExpired, "", rev)
		_, err = s.List(context.Background(), "/", registry.StoreListOptions{ReadOptions: exact(rev)})
		checkError(t, fmt.Sprintf("list at %d", rev), err, raftstore.ErrCodeExpired, "", rev)
	}
	l := mustList(t, s, "/", registry.StoreListOptions{ReadOptions: exact(3)})
	if got := keys(l.Items); fmt.Sprint(got) != "[/a /b]" || l.Revision != 3 {
		t.Errorf("list at the boundary: %v at %d, want [/a /b] at 3", got, l.Revision)
	}
	o, err := s.Get(context.Background(), "/b", exact(3))
	if err != nil {
		t.Fatalf("get at the boundary: %v", err)
	}
	checkObject(t, "object untouched since before the boundary", o, "/b", 2, "v1")
}

func TestCompactBounds(t *testing.T) {
	s := New()
	history(t, s)
	for _, step := range []struct{ ask, want uint64 }{{2, 2}, {1, 2}, {99, 5}} {
		if err := s.Compact(context.Background(), step.ask); err != nil {
			t.Fatal(err)
		}
		if s.Compacted() != step.want {
			t.Errorf("compact at %d: boundary %d, want %d", step.ask, s.Compacted(), step.want)
		}
	}
	if _, err := s.Get(context.Background(), "/a", exact(5)); err != nil {
		t.Errorf("get at the current revision after compacting all: %v", err)
	}
}

func TestHistoryMaxRevisions(t *testing.T) {
	s := NewWithOptions(Options{HistoryMaxRevisions: 2})
	history(t, s)
	if s.Compacted() != 3 {
		t.Fatalf("at revision 5 with 2 revisions kept: boundary %d, want 3", s.Compacted())
	}
	_, err := s.Get(context.Background(), "/a", exact(2))
	checkError(t, "get at 2", err, raftstore.ErrCodeExpired, "", 2)
}
