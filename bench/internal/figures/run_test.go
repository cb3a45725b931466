package figures

import (
	"context"
	"testing"
	"time"
)

func TestRunOnMemory(t *testing.T) {
	cfg := Config{Clients: []int{1, 4}, Duration: 100 * time.Millisecond, ValueSize: 64, ListItems: 10, Watchers: 3, WatchRate: 200}
	out, err := Run(context.Background(), newMemTarget(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"write (create), 1 client", "write (create), 4 clients", "update, 1 client", "update, 4 clients",
		"delete, 1 client", "delete, 4 clients", "Most Recent get, 4 clients", "Any (rv=0) get, 4 clients",
		"list (10 items), 4 clients", "watch delivery, 3 watchers"}
	if len(out) != len(want) {
		t.Fatalf("%d outcomes, want %d", len(out), len(want))
	}
	for i, o := range out {
		if o.Figure != want[i] {
			t.Errorf("outcome %d is %q, want %q", i, o.Figure, want[i])
		}
		if p := o.Problems(); len(p) > 0 {
			t.Errorf("%s: %v", o.Figure, p)
		}
	}
	w := out[len(out)-1].Watch
	if w.Delivered != w.Expected || w.Expected != int64(w.Writes*3) || w.Writes < 15 {
		t.Errorf("watch counts %+v", w)
	}
}

func TestVariantChangesTheHead(t *testing.T) {
	v := NewValue(32)
	if variant(v, 1, 2) == variant(v, 1, 3) || len(variant(v, 1, 2)) != 32 {
		t.Errorf("variants %q, %q", variant(v, 1, 2), variant(v, 1, 3))
	}
	if got := variant("abc", 1, 2); len(got) != 3 {
		t.Errorf("variant of a short value %q", got)
	}
}
