package storetest

import (
	"bytes"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestGet checks Get at every consistency level through a node other
// than the writer: Most Recent, Any (once applied), Not older than and
// Exact at each revision of a key's life (before it existed, each version,
// after its deletion). A missing key is NotFound with the revision the read
// was served at, and an Exact read without a revision is a bad request.
func RunTestGet(t *testing.T, c *Cluster) {
	ctx := Context(t)
	prefix := newPrefix(t)
	a, b := twoNodes(t, c)

	key, gone := prefix+"kept", prefix+"gone"
	v1 := mustCreate(ctx, t, a, key, object("kept", "uid-kept", "v1"))
	v2 := mustUpdate(ctx, t, a, key, object("kept", "uid-kept", "v2"), raftstore.Preconditions{})
	g1 := mustCreate(ctx, t, a, gone, object("gone", "uid-gone", "g1"))
	del := mustDelete(ctx, t, a, gone)
	waitApplied(t, del.Rev, b)

	type want struct {
		obj   raftstore.Object
		found bool
	}
	for _, tc := range []struct {
		name string
		key  string
		opts raftstore.ReadOptions
		want want
	}{
		{"MostRecent", key, raftstore.ReadOptions{}, want{v2, true}},
		{"Any", key, raftstore.ReadOptions{Consistency: raftstore.Any}, want{v2, true}},
		{"NotOlderThanFirst", key, raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: v1.Rev}, want{v2, true}},
		{"NotOlderThanLatest", key, raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: v2.Rev}, want{v2, true}},
		{"ExactBeforeCreate", key, raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: v1.Rev - 1}, want{}},
		{"ExactFirst", key, raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: v1.Rev}, want{v1, true}},
		{"ExactBetween", key, raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: v2.Rev - 1}, want{v1, true}},
		{"ExactSecond", key, raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: v2.Rev}, want{v2, true}},
		{"ExactLater", key, raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: del.Rev}, want{v2, true}},
		{"DeletedMostRecent", gone, raftstore.ReadOptions{}, want{}},
		{"DeletedAny", gone, raftstore.ReadOptions{Consistency: raftstore.Any}, want{}},
		{"DeletedExactAlive", gone, raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: g1.Rev}, want{g1, true}},
		{"DeletedExactBeforeDelete", gone, raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: del.Rev - 1}, want{g1, true}},
		{"DeletedExactAtDelete", gone, raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: del.Rev}, want{}},
		{"NeverCreated", prefix + "never", raftstore.ReadOptions{}, want{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range []*raftstore.Store{b, a} {
				got, err := s.Get(ctx, tc.key, tc.opts)
				if !tc.want.found {
					if !raftstore.IsNotFound(err) {
						t.Fatalf("get through %s: %v %s, want NotFound", s.Name(), err, got.Data)
					}
					e := storeError(t, err)
					switch {
					case tc.opts.Consistency == raftstore.Exact && e.Rev != tc.opts.Revision:
						t.Errorf("NotFound through %s served at revision %d, want the exact %d", s.Name(), e.Rev, tc.opts.Revision)
					case tc.opts.Consistency != raftstore.Exact && e.Rev < del.Rev:
						t.Errorf("NotFound through %s served at revision %d, want >= %d", s.Name(), e.Rev, del.Rev)
					}
					continue
				}
				if err != nil {
					t.Fatalf("get through %s: %v", s.Name(), err)
				}
				checkStamped(t, "get", got, tc.key)
				if got.Rev != tc.want.obj.Rev || !bytes.Equal(got.Data, tc.want.obj.Data) {
					t.Errorf("get through %s: rev %d %s, want rev %d %s", s.Name(), got.Rev, got.Data, tc.want.obj.Rev, tc.want.obj.Data)
				}
			}
		})
	}

	t.Run("ExactWithoutRevision", func(t *testing.T) {
		if _, err := b.Get(ctx, key, raftstore.ReadOptions{Consistency: raftstore.Exact}); !raftstore.IsBadRequest(err) {
			t.Errorf("exact get without a revision: %v, want BadRequest", err)
		}
	})
}
