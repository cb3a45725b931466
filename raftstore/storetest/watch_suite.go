package storetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestWatch checks the basics of a watch: Added, Modified and Deleted
// events with the right revisions and objects (Deleted carrying the last
// state), a non-recursive watch seeing only its key, a watch on a follower
// seeing writes made through the leader, and a watch from revision 0
// starting from the node's current state with nothing older.
func RunTestWatch(t *testing.T, c *Cluster) {
	ctx := Context(t)
	a, b := twoNodes(t, c)

	t.Run("EventTypes", func(t *testing.T) {
		prefix := newPrefix(t)
		w := mustWatch(ctx, t, b, prefix, raftstore.WatchOptions{Recursive: true})
		key := prefix + "obj"
		created := mustCreate(ctx, t, a, key, object("obj", "uid-obj", "v1"))
		updated := mustUpdate(ctx, t, a, key, object("obj", "uid-obj", "v2"), raftstore.Preconditions{})
		deleted := mustDelete(ctx, t, a, key)
		evs := collect(t, w, 3)
		checkChanges(t, "create, update, delete", evs, []change{
			{raftstore.Added, key, created.Rev, created.Data},
			{raftstore.Modified, key, updated.Rev, updated.Data},
			{raftstore.Deleted, key, deleted.Rev, deleted.Data},
		})
		if evs[0].Prev != nil {
			t.Errorf("Added event has a previous object %s", evs[0].Prev)
		}
		if !bytes.Equal(evs[1].Prev, created.Data) {
			t.Errorf("Modified event's previous object %s, want %s", evs[1].Prev, created.Data)
		}
		if !bytes.Equal(evs[2].Prev, updated.Data) {
			t.Errorf("Deleted event's previous object %s, want the last state %s", evs[2].Prev, updated.Data)
		}
		if d := decode(t, evs[2].Object); d.Spec.Value != "v2" || d.Metadata.UID != "uid-obj" {
			t.Errorf("Deleted event's object %s, want the last state %s", evs[2].Object, updated.Data)
		}
		if rv := resourceVersion(t, evs[2].Object); rv != deleted.Rev {
			t.Errorf("Deleted event's object stamped %d, want the deletion's revision %d", rv, deleted.Rev)
		}
	})

	t.Run("SingleKey", func(t *testing.T) {
		prefix := newPrefix(t)
		key := prefix + "k"
		w := mustWatch(ctx, t, b, key, raftstore.WatchOptions{})
		var want []change
		for i := range 3 {
			for _, other := range []string{key + "2", key + "/child"} {
				if i == 0 {
					mustCreate(ctx, t, a, other, object("other", "u", "v"))
				} else {
					mustUpdate(ctx, t, a, other, object("other", "u", fmt.Sprint(i)), raftstore.Preconditions{})
				}
			}
			var o raftstore.Object
			if i == 0 {
				o = mustCreate(ctx, t, a, key, object("k", "u", "v"))
				want = append(want, change{raftstore.Added, key, o.Rev, o.Data})
			} else {
				o = mustUpdate(ctx, t, a, key, object("k", "u", fmt.Sprint(i)), raftstore.Preconditions{})
				want = append(want, change{raftstore.Modified, key, o.Rev, o.Data})
			}
		}
		checkChanges(t, "watch of one key", collect(t, w, len(want)), want)
	})

	t.Run("FollowerSeesLeaderWrites", func(t *testing.T) {
		prefix := newPrefix(t)
		leader := c.Leader()
		var watches []*raftstore.Watch
		for _, s := range c.Stores() {
			watches = append(watches, mustWatch(ctx, t, s, prefix, raftstore.WatchOptions{Recursive: true}))
		}
		var want []change
		for i := range 5 {
			key := fmt.Sprintf("%s%d", prefix, i)
			o := mustCreate(ctx, t, leader, key, object(key, "u", "v"))
			want = append(want, change{raftstore.Added, key, o.Rev, o.Data})
		}
		for i, w := range watches {
			checkChanges(t, fmt.Sprintf("watch through %s", c.Stores()[i].Name()), collect(t, w, len(want)), want)
		}
	})

	t.Run("FromNow", func(t *testing.T) {
		prefix := newPrefix(t)
		key := prefix + "k"
		o := mustCreate(ctx, t, a, key, object("k", "u", "0"))
		for i := range 5 {
			waitApplied(t, o.Rev, b)
			w := mustWatch(ctx, t, b, prefix, raftstore.WatchOptions{Recursive: true})
			o = mustUpdate(ctx, t, a, key, object("k", "u", fmt.Sprint(i+1)), raftstore.Preconditions{})
			ev := nextChange(t, w)
			if got := changeOf(ev); got.String() != (change{raftstore.Modified, key, o.Rev, nil}).String() {
				t.Fatalf("watch from now through %s: first event %v, want the update at %d written after it started", b.Name(), got, o.Rev)
			}
			w.Stop()
		}
	})
}
