package storetest

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// RunTestListPagination checks paginated lists: every page is served at
// the first page's revision and the pages together are the state at that
// revision, even with writes between pages and pages read through
// different nodes; RemainingItemCount is right without a predicate and
// unset with one or with SkipCount; a predicate still fills every page but the last up to
// Limit; a tampered or undecodable continue token, or one issued for
// another prefix, is a bad request.
func RunTestListPagination(t *testing.T, c *Cluster) {
	ctx := Context(t)
	a, b := twoNodes(t, c)

	t.Run("PagesAtFirstRevision", func(t *testing.T) {
		prefix := newPrefix(t)
		want := model{}
		for i := range 10 {
			key := fmt.Sprintf("%sp%02d", prefix, i)
			want[key] = mustCreate(ctx, t, a, key, object(key, "u", "v"))
		}
		opts := raftstore.ListOptions{Limit: 3}
		var items []raftstore.Object
		var rev uint64
		for page := 0; ; page++ {
			s := []*raftstore.Store{a, b}[page%2]
			l := mustList(ctx, t, s, prefix, opts)
			if page == 0 {
				rev = l.Revision
			} else if l.Revision != rev {
				t.Fatalf("page %d through %s at revision %d, first page at %d", page, s.Name(), l.Revision, rev)
			}
			items = append(items, l.Items...)
			if l.Continue == "" {
				break
			}
			// Change the keys of later pages, and add keys that sort
			// inside and after them, between pages.
			p := fmt.Sprintf("%sp%02d", prefix, 3*page+4)
			mustCreate(ctx, t, b, p+"-between", object("between", "u", "v"))
			if page < 2 {
				mustUpdate(ctx, t, a, p, object(p, "u", "changed"), raftstore.Preconditions{})
				mustDelete(ctx, t, b, fmt.Sprintf("%sp%02d", prefix, 3*page+5))
			}
			mustCreate(ctx, t, a, fmt.Sprintf("%sz%02d", prefix, page), object("after", "u", "v"))
			opts = raftstore.ListOptions{Limit: 3, Continue: l.Continue}
		}
		checkSorted(t, items)
		checkItems(t, fmt.Sprintf("pages at revision %d", rev), items, want)
	})

	t.Run("RemainingItemCount", func(t *testing.T) {
		prefix := newPrefix(t)
		want := model{}
		for i := range 10 {
			key := fmt.Sprintf("%sr%02d", prefix, i)
			want[key] = mustCreate(ctx, t, a, key, object(key, "u", "v"))
		}
		for _, limit := range []int64{1, 3, 4, 9, 10, 11} {
			t.Run(fmt.Sprintf("Limit%d", limit), func(t *testing.T) {
				items, _ := listAll(ctx, t, prefix, raftstore.ListOptions{Limit: limit}, b, a)
				checkItems(t, "all pages", items, want)
			})
		}
		t.Run("SkipCount", func(t *testing.T) {
			items, _ := listAll(ctx, t, prefix, raftstore.ListOptions{Limit: 3, SkipCount: true}, b, a)
			checkItems(t, "all pages", items, want)
		})
	})

	t.Run("Predicate", func(t *testing.T) {
		prefix := newPrefix(t)
		all := model{}
		for i := range 13 {
			key := fmt.Sprintf("%sf%02d", prefix, i)
			value := []string{"even", "odd"}[i%2]
			if i >= 6 && i < 10 {
				value = "odd" // a run of non-matching keys inside a page
			}
			all[key] = mustCreate(ctx, t, a, key, object(key, "u", value))
		}
		pred := valuePredicate("even")
		want := all.filter(pred)
		for _, limit := range []int64{1, 2, 3, 100} {
			t.Run(fmt.Sprintf("Limit%d", limit), func(t *testing.T) {
				items, _ := listAll(ctx, t, prefix, raftstore.ListOptions{Limit: limit, Predicate: pred}, b, a)
				checkItems(t, "matching items", items, want)
			})
		}
	})

	t.Run("BadContinue", func(t *testing.T) {
		prefix, other := newPrefix(t), newPrefix(t)
		for i := range 3 {
			mustCreate(ctx, t, a, fmt.Sprintf("%s%d", prefix, i), object("x", "u", "v"))
			mustCreate(ctx, t, a, fmt.Sprintf("%s%d", other, i), object("x", "u", "v"))
		}
		good := mustList(ctx, t, a, prefix, raftstore.ListOptions{Limit: 1}).Continue
		foreign := mustList(ctx, t, a, other, raftstore.ListOptions{Limit: 1}).Continue
		if good == "" || foreign == "" {
			t.Fatalf("a limited list of 3 items returned no continue token")
		}
		b64 := base64.RawURLEncoding.EncodeToString
		for _, tc := range []struct{ name, token string }{
			{"Garbage", "%%% not a token %%%"},
			{"NotJSON", b64([]byte("hello, world"))},
			{"EmptyJSON", b64([]byte("{}"))},
			{"JSONArray", b64([]byte("[1,2,3]"))},
			{"Truncated", good[:len(good)/2]},
			{"TrailingGarbage", good + "!!"},
			{"OtherPrefix", foreign},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, s := range []*raftstore.Store{b, a} {
					l, err := s.List(ctx, prefix, raftstore.ListOptions{Limit: 1, Continue: tc.token})
					if !raftstore.IsBadRequest(err) {
						t.Errorf("list through %s with continue %q: %v %+v, want BadRequest", s.Name(), tc.token, err, l)
					}
				}
			})
		}
		if _, err := b.List(ctx, prefix, raftstore.ListOptions{Limit: 1, Continue: good}); err != nil {
			t.Errorf("the untampered token fails: %v", err)
		}
	})
}
