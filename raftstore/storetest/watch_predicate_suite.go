package storetest

import (
	"fmt"
	"testing"

	"github.com/raftapi/raftapi/fsm"
	"github.com/raftapi/raftapi/raftstore"
)

// RunTestWatchPredicate checks a filtered watch, live and replayed from
// history: an object that starts matching yields Added, one that keeps
// matching Modified, one that stops matching Deleted (carrying its last
// matching state at the change's revision, as kube-apiserver's watch cache
// does), and changes that never match yield nothing.
func RunTestWatchPredicate(t *testing.T, c *Cluster) {
	ctx := Context(t)
	prefix := newPrefix(t)
	a, b := twoNodes(t, c)
	pred := valuePredicate("match")
	base := c.Leader().Revision()
	live := mustWatch(ctx, t, b, prefix, raftstore.WatchOptions{Recursive: true, Predicate: pred})

	k1, k2, k3 := prefix+"k1", prefix+"k2", prefix+"k3"
	var want []change
	expect := func(typ raftstore.WatchEventType, o raftstore.Object) {
		want = append(want, change{typ, o.Key, o.Rev, o.Data})
	}
	update := func(key, uid, value string) raftstore.Object {
		return mustUpdate(ctx, t, a, key, object(key, uid, value), raftstore.Preconditions{})
	}
	mustCreate(ctx, t, a, k1, object(k1, "u1", "no"))  // never matched: nothing
	expect(raftstore.Added, update(k1, "u1", "match")) // starts matching
	kept := update(k1, "u2", "match")                  // keeps matching
	expect(raftstore.Modified, kept)
	left := update(k1, "u2", "no") // stops matching
	last, err := fsm.StampResourceVersion(kept.Data, left.Rev)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, change{raftstore.Deleted, left.Key, left.Rev, last})
	update(k1, "u3", "no")                               // still not matching: nothing
	expect(raftstore.Added, update(k1, "u3", "match"))   // matches again
	expect(raftstore.Deleted, mustDelete(ctx, t, a, k1)) // deleted while matching
	mustCreate(ctx, t, a, k2, object(k2, "u", "no"))     // created not matching: nothing
	mustDelete(ctx, t, a, k2)                            // deleted not matching: nothing
	expect(raftstore.Added, mustCreate(ctx, t, a, k3, object(k3, "u", "match")))

	replayed := mustWatch(ctx, t, a, prefix, raftstore.WatchOptions{Revision: base, Recursive: true, Predicate: pred})
	for name, w := range map[string]*raftstore.Watch{"live through " + b.Name(): live, "replayed through " + a.Name(): replayed} {
		evs := collect(t, w, len(want))
		checkChanges(t, "filtered watch "+name, evs, want)
		if d := decode(t, evs[2].Object); d.Spec.Value != "match" {
			t.Errorf("%s: Deleted on no longer matching carries %s, want the last matching state", name, evs[2].Object)
		}
	}

	// Nothing else is pending: the next event is the next matching write.
	k4 := mustCreate(ctx, t, a, prefix+"k4", object("k4", "u", "match"))
	for i, w := range []*raftstore.Watch{live, replayed} {
		checkChanges(t, fmt.Sprintf("filtered watch %d after the writes", i), collect(t, w, 1),
			[]change{{raftstore.Added, k4.Key, k4.Rev, k4.Data}})
	}
}
