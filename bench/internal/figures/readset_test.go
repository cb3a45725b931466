package figures

import (
	"context"
	"testing"
	"time"
)

// TestReadsOnMemory: the read figures one at a time, on a read space
// NewReads filled.
func TestReadsOnMemory(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Clients: []int{4}, Duration: 100 * time.Millisecond, ValueSize: 64, ListItems: 10, Watchers: 2, WatchRate: 100}
	m := newMemTarget()
	r, err := NewReads(ctx, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := m.List(ctx, 0, readSpace); n != 10 {
		t.Errorf("read space holds %d keys, want 10", n)
	}
	w, err := r.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Outcome{r.Get(ctx), r.List(ctx), w} {
		if p := o.Problems(); len(p) > 0 || o.Target != "mem" {
			t.Errorf("%s on %s: %v", o.Figure, o.Target, p)
		}
	}
	if _, err := NewReads(ctx, m, cfg); err == nil {
		t.Error("a second NewReads filled a read space that was full already")
	}
}

// TestReadsWatchTwice: a second watch figure runs in a space of its own.
func TestReadsWatchTwice(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Clients: []int{2}, Duration: 50 * time.Millisecond, ValueSize: 16, ListItems: 2, Watchers: 1, WatchRate: 100}
	r, err := NewReads(ctx, newMemTarget(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		o, err := r.Watch(ctx)
		if err != nil || len(o.Problems()) > 0 {
			t.Errorf("watch figure %d: %v %v", i+1, err, o.Problems())
		}
	}
}
