package storetest

import (
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestDelete checks Delete and its preconditions (the same table as
// RunTestUpdate): rejected deletes change nothing; a successful delete
// returns the last state stamped with the deletion's revision, the key is
// then NotFound through every node, a second delete is NotFound, and the
// key can be created again at a higher revision.
func RunTestDelete(t *testing.T, c *Cluster) {
	prefix := newPrefix(t)
	a, b := twoNodes(t, c)
	for _, tc := range preconditionCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx := Context(t)
			key := prefix + tc.name
			current, pre := tc.prepare(t, a, key)
			got, err := b.Delete(ctx, key, pre)
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("delete with %+v: %v, want a %s error", pre, err, tc.name)
				}
				checkUnchanged(t, a, key, current, tc.missing)
				return
			}
			if err != nil {
				t.Fatalf("delete with %+v: %v", pre, err)
			}
			checkDeleted(t, c, got, current)
			if _, err := a.Delete(ctx, key, raftstore.Preconditions{}); !raftstore.IsNotFound(err) {
				t.Errorf("second delete: %v, want NotFound", err)
			}
			again := mustCreate(ctx, t, a, key, object(key, "uid-again", "again"))
			if again.Rev <= got.Rev {
				t.Errorf("create after delete at revision %d, delete at %d", again.Rev, got.Rev)
			}
		})
	}
}

// checkDeleted checks a delete's result against the object it deleted,
// and that no node serves the key any more.
func checkDeleted(t *testing.T, c *Cluster, got, last raftstore.Object) {
	t.Helper()
	ctx := Context(t)
	checkStamped(t, "delete", got, last.Key)
	if got.Rev <= last.Rev {
		t.Errorf("delete at revision %d, previous write at %d", got.Rev, last.Rev)
	}
	gd, ld := decode(t, got.Data), decode(t, last.Data)
	if gd.Spec != ld.Spec || gd.Metadata.UID != ld.Metadata.UID || gd.Metadata.Name != ld.Metadata.Name {
		t.Errorf("delete returned %s, want the last state %s", got.Data, last.Data)
	}
	for _, s := range c.Stores() {
		if o, err := s.Get(ctx, last.Key, raftstore.ReadOptions{}); !raftstore.IsNotFound(err) {
			t.Errorf("get through %s after delete: %v %s, want NotFound", s.Name(), err, o.Data)
		}
	}
}
