package registrytest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

func TestLeader(t *testing.T) {
	s := New()
	if !s.IsLeader() {
		t.Errorf("a new storage is not leader")
	}
	s.SetLeader(false)
	if s.IsLeader() {
		t.Errorf("IsLeader after SetLeader(false)")
	}
	mustCreate(t, s, "/a", object("a", "u", "v")) // a follower forwards writes
	s.SetLeader(true)
	if !s.IsLeader() {
		t.Errorf("not leader after SetLeader(true)")
	}
}

func TestEndedContext(t *testing.T) {
	s := New()
	mustCreate(t, s, "/a", object("a", "u", "v"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Update(ctx, "/a", object("a", "u", "v2"), registry.Preconditions{})
	if !raftstore.IsUnavailable(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("update on a cancelled context: %v, want Unavailable wrapping context.Canceled", err)
	}
	if _, err := s.Get(ctx, "/a", registry.ReadOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("get on a cancelled context: %v", err)
	}
	if _, err := s.Watch(ctx, "/a", registry.WatchOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("watch on a cancelled context: %v", err)
	}
	if s.Revision() != 1 {
		t.Errorf("revision %d after a write on a cancelled context, want 1", s.Revision())
	}
}

func TestClose(t *testing.T) {
	s := New()
	mustCreate(t, s, "/a", object("a", "u", "v"))
	w := mustWatch(t, s, "/", registry.WatchOptions{Recursive: true})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, w)
	if ev.Type != raftstore.WatchError || !raftstore.IsUnavailable(ev.Err) {
		t.Errorf("watch on close: %v %v, want an Unavailable WatchError", ev.Type, ev.Err)
	}
	expectClosed(t, w)
	ctx := context.Background()
	_, errCreate := s.Create(ctx, "/b", object("b", "u", "v"))
	_, errGet := s.Get(ctx, "/a", registry.ReadOptions{})
	_, errList := s.List(ctx, "/", registry.StoreListOptions{})
	_, errWatch := s.Watch(ctx, "/", registry.WatchOptions{})
	for i, err := range []error{errCreate, errGet, errList, errWatch, s.Compact(ctx, 1)} {
		if !raftstore.IsUnavailable(err) || !errors.Is(err, raftstore.ErrClosed) {
			t.Errorf("call %d after Close: %v, want Unavailable (ErrClosed)", i, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestConcurrentWrites(t *testing.T) {
	s := New()
	w := mustWatch(t, s, "/", registry.WatchOptions{Recursive: true})
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range each {
				key := fmt.Sprintf("/k/%d/%d", i, j)
				if _, err := s.Create(context.Background(), key, object("k", "u", "v")); err != nil {
					t.Errorf("create %s: %v", key, err)
				}
				if _, err := s.Get(context.Background(), key, registry.ReadOptions{}); err != nil {
					t.Errorf("get %s: %v", key, err)
				}
			}
		})
	}
	wg.Wait()
	evs := collect(t, w, writers*each)
	for i, ev := range evs {
		if ev.Rev != uint64(i+1) {
			t.Fatalf("event %d at revision %d, want %d: revisions must be unique and gapless", i, ev.Rev, i+1)
		}
	}
	if l := mustList(t, s, "/k/", registry.StoreListOptions{}); len(l.Items) != writers*each {
		t.Errorf("listed %d objects, want %d", len(l.Items), writers*each)
	}
}
