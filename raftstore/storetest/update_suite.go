package storetest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// preconditionCase is one row of the update and delete precondition
// tables. pre builds the preconditions from the key's current object (the
// one a client read) and the object before its last update (stale);
// wantErr is the predicate a rejected write's error must satisfy, nil for
// success.
type preconditionCase struct {
	name    string
	missing bool // operate on a key that does not exist
	pre     func(current, stale raftstore.Object) raftstore.Preconditions
	wantErr func(error) bool
}

func preconditionCases() []preconditionCase {
	none := func(_, _ raftstore.Object) raftstore.Preconditions { return raftstore.Preconditions{} }
	return []preconditionCase{
		{name: "MissingKey", missing: true, pre: none, wantErr: raftstore.IsNotFound},
		{name: "MissingKeyWithPreconditions", missing: true, wantErr: raftstore.IsNotFound,
			pre: func(cur, _ raftstore.Object) raftstore.Preconditions {
				return raftstore.Preconditions{ResourceVersion: cur.Rev, UID: uidOf(cur)}
			}},
		{name: "StaleResourceVersion", wantErr: raftstore.IsConflict,
			pre: func(_, stale raftstore.Object) raftstore.Preconditions {
				return raftstore.Preconditions{ResourceVersion: stale.Rev}
			}},
		{name: "FutureResourceVersion", wantErr: raftstore.IsConflict,
			pre: func(cur, _ raftstore.Object) raftstore.Preconditions {
				return raftstore.Preconditions{ResourceVersion: cur.Rev + 1000}
			}},
		{name: "WrongUID", wantErr: raftstore.IsConflict,
			pre: func(_, _ raftstore.Object) raftstore.Preconditions {
				return raftstore.Preconditions{UID: "some-other-uid"}
			}},
		{name: "RightResourceVersionWrongUID", wantErr: raftstore.IsConflict,
			pre: func(cur, _ raftstore.Object) raftstore.Preconditions {
				return raftstore.Preconditions{ResourceVersion: cur.Rev, UID: "some-other-uid"}
			}},
		{name: "RightUIDStaleResourceVersion", wantErr: raftstore.IsConflict,
			pre: func(cur, stale raftstore.Object) raftstore.Preconditions {
				return raftstore.Preconditions{ResourceVersion: stale.Rev, UID: uidOf(cur)}
			}},
		{name: "NoPreconditions", pre: none},
		{name: "MatchingResourceVersion",
			pre: func(cur, _ raftstore.Object) raftstore.Preconditions {
				return raftstore.Preconditions{ResourceVersion: cur.Rev}
			}},
		{name: "MatchingUID",
			pre: func(cur, _ raftstore.Object) raftstore.Preconditions {
				return raftstore.Preconditions{UID: uidOf(cur)}
			}},
		{name: "MatchingBoth",
			pre: func(cur, _ raftstore.Object) raftstore.Preconditions {
				return raftstore.Preconditions{ResourceVersion: cur.Rev, UID: uidOf(cur)}
			}},
	}
}

// uidOf returns metadata.uid of an object ("" if it is not JSON).
func uidOf(o raftstore.Object) string {
	var d decoded
	_ = json.Unmarshal(o.Data, &d)
	return d.Metadata.UID
}

// setupPrecondition creates key through s and updates it once, returning
// the current object and the one before the update (stale).
func setupPrecondition(t *testing.T, s *raftstore.Store, key string) (current, stale raftstore.Object) {
	t.Helper()
	ctx := Context(t)
	stale = mustCreate(ctx, t, s, key, object(key, "uid-"+key, "created"))
	current = mustUpdate(ctx, t, s, key, object(key, "uid-"+key, "updated"), raftstore.Preconditions{})
	return current, stale
}

// prepare sets key up for the case through s: for a missing key it only
// makes the object a client would have read; otherwise it creates and
// updates the key. It returns the current object and the case's
// preconditions.
func (tc preconditionCase) prepare(t *testing.T, s *raftstore.Store, key string) (raftstore.Object, raftstore.Preconditions) {
	t.Helper()
	var current, stale raftstore.Object
	if tc.missing {
		current = raftstore.Object{Key: key, Rev: 1, Data: object(key, "uid-"+key, "x")}
	} else {
		current, stale = setupPrecondition(t, s, key)
	}
	return current, tc.pre(current, stale)
}

// RunTestUpdate checks Update and its preconditions: a missing key is
// NotFound, a stale or wrong resourceVersion or a wrong UID is Conflict and
// changes nothing; matching preconditions (or none) succeed with a higher
// revision stamped into the object, visible through another node.
func RunTestUpdate(t *testing.T, c *Cluster) {
	prefix := newPrefix(t)
	a, b := twoNodes(t, c)
	for _, tc := range preconditionCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx := Context(t)
			key := prefix + tc.name
			current, pre := tc.prepare(t, a, key)
			got, err := b.Update(ctx, key, object(key, "uid-"+key, "replaced"), pre)
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("update with %+v: %v, want a %s error", pre, err, tc.name)
				}
				checkUnchanged(t, a, key, current, tc.missing)
				return
			}
			if err != nil {
				t.Fatalf("update with %+v: %v", pre, err)
			}
			checkStamped(t, "update", got, key)
			if got.Rev <= current.Rev {
				t.Errorf("update at revision %d, previous write at %d", got.Rev, current.Rev)
			}
			if v := specValue(t, got.Data); v != "replaced" {
				t.Errorf("updated object has value %q, want replaced", v)
			}
			g := mustGet(ctx, t, a, key, raftstore.ReadOptions{})
			if g.Rev != got.Rev || !bytes.Equal(g.Data, got.Data) {
				t.Errorf("get after update: rev %d %s, want rev %d %s", g.Rev, g.Data, got.Rev, got.Data)
			}
		})
	}
}

// checkUnchanged fails unless a rejected write left key as it was.
func checkUnchanged(t *testing.T, s *raftstore.Store, key string, current raftstore.Object, missing bool) {
	t.Helper()
	ctx := Context(t)
	g, err := s.Get(ctx, key, raftstore.ReadOptions{})
	if missing {
		if !raftstore.IsNotFound(err) {
			t.Errorf("a rejected write created %s: %v %s", key, err, g.Data)
		}
		return
	}
	if err != nil {
		t.Fatalf("get after a rejected write: %v", err)
	}
	if g.Rev != current.Rev || !bytes.Equal(g.Data, current.Data) {
		t.Errorf("a rejected write changed %s: rev %d %s, want rev %d %s", key, g.Rev, g.Data, current.Rev, current.Data)
	}
}
