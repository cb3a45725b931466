package storetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestCreate checks Create: the returned object carries the commit
// revision in Rev and in metadata.resourceVersion, other nodes read it
// back identically, a second create of the key is AlreadyExists through
// every node, a malformed object or key is Invalid, and the revisions of
// successive writes through different nodes strictly increase.
func RunTestCreate(t *testing.T, c *Cluster) {
	ctx := Context(t)
	prefix := newPrefix(t)
	a, b := twoNodes(t, c)

	t.Run("StampsRevision", func(t *testing.T) {
		key := prefix + "stamped"
		obj := object("stamped", "uid-stamped", "v1")
		o := mustCreate(ctx, t, a, key, obj)
		d := decode(t, o.Data)
		if d.Metadata.UID != "uid-stamped" || d.Spec.Value != "v1" || d.Metadata.Name != "stamped" {
			t.Errorf("created object lost fields: %s", o.Data)
		}
		for _, s := range c.Stores() {
			g := mustGet(ctx, t, s, key, raftstore.ReadOptions{})
			if g.Rev != o.Rev || !bytes.Equal(g.Data, o.Data) {
				t.Errorf("get through %s: rev %d %s, want rev %d %s", s.Name(), g.Rev, g.Data, o.Rev, o.Data)
			}
		}
		l := mustList(ctx, t, b, prefix, raftstore.ListOptions{})
		checkItems(t, "list after create", l.Items, model{key: o})
	})

	t.Run("AlreadyExists", func(t *testing.T) {
		key := prefix + "exists"
		first := mustCreate(ctx, t, a, key, object("exists", "uid-1", "first"))
		for _, s := range c.Stores() {
			_, err := s.Create(ctx, key, object("exists", "uid-2", "second"))
			if !raftstore.IsAlreadyExists(err) {
				t.Errorf("second create through %s: %v, want AlreadyExists", s.Name(), err)
			}
		}
		g := mustGet(ctx, t, b, key, raftstore.ReadOptions{})
		if g.Rev != first.Rev || !bytes.Equal(g.Data, first.Data) {
			t.Errorf("a rejected create changed the object: rev %d %s, want rev %d", g.Rev, g.Data, first.Rev)
		}
	})

	t.Run("Invalid", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			key  string
			obj  []byte
		}{
			{"NotJSON", prefix + "notjson", []byte("not json")},
			{"JSONArray", prefix + "array", []byte(`[1,2]`)},
			{"EmptyKey", "", object("x", "u", "v")},
			{"KeyWithNUL", prefix + "a\x00b", object("x", "u", "v")},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if _, err := a.Create(ctx, tc.key, tc.obj); !raftstore.IsInvalid(err) {
					t.Errorf("create %q %q: %v, want Invalid", tc.key, tc.obj, err)
				}
			})
		}
		if _, err := b.Get(ctx, prefix+"notjson", raftstore.ReadOptions{}); !raftstore.IsNotFound(err) {
			t.Errorf("get of a rejected create: %v, want NotFound", err)
		}
	})

	t.Run("RevisionsIncrease", func(t *testing.T) {
		stores := c.Stores()
		var last uint64
		for i := range 12 {
			s := stores[i%len(stores)]
			key := fmt.Sprintf("%sinc-%02d", prefix, i)
			o := mustCreate(ctx, t, s, key, object(key, "u", "v"))
			if o.Rev <= last {
				t.Errorf("create %d through %s at revision %d, previous write at %d", i, s.Name(), o.Rev, last)
			}
			last = o.Rev
			if i%3 == 2 {
				u := mustUpdate(ctx, t, s, key, object(key, "u", "w"), raftstore.Preconditions{})
				if u.Rev <= last {
					t.Errorf("update %d at revision %d, previous write at %d", i, u.Rev, last)
				}
				last = u.Rev
			}
		}
	})
}
