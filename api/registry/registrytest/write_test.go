package registrytest

import (
	"context"
	"strings"
	"testing"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

func TestCreate(t *testing.T) {
	s := New()
	if s.Revision() != 0 {
		t.Fatalf("new storage at revision %d, want 0", s.Revision())
	}
	a := mustCreate(t, s, "/a", object("a", "u", "v1"))
	b := mustCreate(t, s, "/b", object("b", "u", "v1"))
	checkObject(t, "first create", a, "/a", 1, "v1")
	checkObject(t, "second create", b, "/b", 2, "v1")
	got, err := s.Get(context.Background(), "/a", registry.ReadOptions{})
	if err != nil || string(got.Data) != string(a.Data) || got.Rev != a.Rev {
		t.Errorf("get after create: %s@%d %v, want %s@%d", got.Data, got.Rev, err, a.Data, a.Rev)
	}

	_, err = s.Create(context.Background(), "/a", object("a", "u", "v2"))
	checkError(t, "create of an existing key", err, raftstore.ErrCodeAlreadyExists, "/a", 0)
	if !raftstore.IsAlreadyExists(err) {
		t.Errorf("IsAlreadyExists(%v) = false", err)
	}
	if s.Revision() != 2 {
		t.Errorf("a rejected create moved the revision to %d", s.Revision())
	}
}

func TestCreateInvalid(t *testing.T) {
	for name, tc := range map[string]struct {
		key string
		obj []byte
	}{
		"EmptyKey":    {"", object("a", "u", "v")},
		"KeyWithNUL":  {"/a\x00b", object("a", "u", "v")},
		"KeyTooLong":  {"/" + strings.Repeat("k", maxKeyLen), object("a", "u", "v")},
		"NotJSON":     {"/a", []byte("{")},
		"JSONArray":   {"/a", []byte("[1]")},
		"JSONNull":    {"/a", []byte("null")},
		"MetadataInt": {"/a", []byte(`{"metadata":1}`)},
	} {
		t.Run(name, func(t *testing.T) {
			s := New()
			_, err := s.Create(context.Background(), tc.key, tc.obj)
			checkError(t, "create", err, raftstore.ErrCodeInvalid, tc.key, 0)
			if s.Revision() != 0 {
				t.Errorf("a rejected create moved the revision to %d", s.Revision())
			}
		})
	}
}

func TestStampKeepsOtherFields(t *testing.T) {
	s := New()
	o := mustCreate(t, s, "/a", []byte(`{"kind":"K","metadata":{"name":"a","resourceVersion":"99"},"z":[1,2]}`))
	want := `{"kind":"K","metadata":{"name":"a","resourceVersion":"1"},"z":[1,2]}`
	if string(o.Data) != want {
		t.Errorf("stored %s, want %s", o.Data, want)
	}
	o = mustCreate(t, s, "/b", []byte(`{}`))
	if string(o.Data) != `{"metadata":{"resourceVersion":"2"}}` {
		t.Errorf("stored %s, want metadata added", o.Data)
	}
}

func TestUpdateAndDeletePreconditions(t *testing.T) {
	type op func(s *Storage, pre registry.Preconditions) (Object, error)
	update := func(s *Storage, pre registry.Preconditions) (Object, error) {
		return s.Update(context.Background(), "/k", object("k", "uid-1", "v2"), pre)
	}
	del := func(s *Storage, pre registry.Preconditions) (Object, error) {
		return s.Delete(context.Background(), "/k", pre)
	}
	for opName, do := range map[string]op{"Update": update, "Delete": del} {
		for name, tc := range map[string]struct {
			pre  registry.Preconditions
			code raftstore.ErrorCode
		}{
			"None":             {registry.Preconditions{}, 0},
			"RevisionMatches":  {registry.Preconditions{ResourceVersion: 2}, 0},
			"RevisionDiffers":  {registry.Preconditions{ResourceVersion: 1}, raftstore.ErrCodeConflict},
			"UIDMatches":       {registry.Preconditions{UID: "uid-1"}, 0},
			"UIDDiffers":       {registry.Preconditions{UID: "uid-2"}, raftstore.ErrCodeConflict},
			"BothMatch":        {registry.Preconditions{ResourceVersion: 2, UID: "uid-1"}, 0},
			"UIDDiffersRevSet": {registry.Preconditions{ResourceVersion: 2, UID: "x"}, raftstore.ErrCodeConflict},
		} {
			t.Run(opName+"/"+name, func(t *testing.T) {
				s := New()
				mustCreate(t, s, "/other", object("o", "u", "v"))
				cur := mustCreate(t, s, "/k", object("k", "uid-1", "v1"))
				o, err := do(s, tc.pre)
				if tc.code != 0 {
					checkError(t, opName, err, tc.code, "/k", cur.Rev)
					if s.Revision() != 2 {
						t.Errorf("a rejected %s moved the revision to %d", opName, s.Revision())
					}
					return
				}
				if err != nil {
					t.Fatalf("%s: %v", opName, err)
				}
				want := map[string]string{"Update": "v2", "Delete": "v1"}[opName]
				checkObject(t, opName, o, "/k", 3, want)
			})
		}
	}
}

func TestUpdateAndDeleteNotFound(t *testing.T) {
	s := New()
	mustCreate(t, s, "/k", object("k", "u", "v"))
	mustDelete(t, s, "/k")
	_, err := s.Update(context.Background(), "/k", object("k", "u", "v"), registry.Preconditions{})
	checkError(t, "update of a deleted key", err, raftstore.ErrCodeNotFound, "/k", 0)
	_, err = s.Delete(context.Background(), "/missing", registry.Preconditions{})
	checkError(t, "delete of a missing key", err, raftstore.ErrCodeNotFound, "/missing", 0)
	if !raftstore.IsNotFound(err) {
		t.Errorf("IsNotFound(%v) = false", err)
	}
	_, err = s.Update(context.Background(), "/k", object("k", "u", "v"), registry.Preconditions{ResourceVersion: 1})
	checkError(t, "NotFound comes before the preconditions", err, raftstore.ErrCodeNotFound, "/k", 0)
}

func TestUpdate(t *testing.T) {
	s := New()
	mustCreate(t, s, "/k", object("k", "u", "v1"))
	o := mustUpdate(t, s, "/k", object("k", "u", "v2"))
	checkObject(t, "update", o, "/k", 2, "v2")
	_, err := s.Update(context.Background(), "/k", []byte("nope"), registry.Preconditions{})
	checkError(t, "update with invalid JSON", err, raftstore.ErrCodeInvalid, "/k", 0)
	got, err := s.Get(context.Background(), "/k", registry.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkObject(t, "get after update", got, "/k", 2, "v2")
}

func TestDelete(t *testing.T) {
	s := New()
	created := mustCreate(t, s, "/k", object("k", "u", "v1"))
	o := mustDelete(t, s, "/k")
	checkObject(t, "delete returns the last state at the deletion's revision", o, "/k", 2, "v1")
	last, err := raftstore.StampResourceVersion(created.Data, 2)
	if err != nil || string(o.Data) != string(last) {
		t.Errorf("deleted object %s, want %s (%v)", o.Data, last, err)
	}
	_, err = s.Get(context.Background(), "/k", registry.ReadOptions{})
	checkError(t, "get after delete", err, raftstore.ErrCodeNotFound, "/k", 2)
	mustCreate(t, s, "/k", object("k", "u2", "v2"))
}

func TestReturnedDataIsACopy(t *testing.T) {
	s := New()
	o := mustCreate(t, s, "/k", object("k", "u", "v1"))
	o.Data[0] = 'X'
	got, err := s.Get(context.Background(), "/k", registry.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Data[0] = 'X'
	checkObject(t, "after callers changed returned data", mustList(t, s, "/", registry.StoreListOptions{}).Items[0], "/k", 1, "v1")
}
