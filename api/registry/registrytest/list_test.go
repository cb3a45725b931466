package registrytest

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

func TestList(t *testing.T) {
	s := New()
	history(t, s)
	mustCreate(t, s, "/ab", object("ab", "u", "v1")) // 6: outside "/a/"
	mustCreate(t, s, "/a/2", object("a2", "u", "v1"))
	mustCreate(t, s, "/a/1", object("a1", "u", "v2"))
	for name, tc := range map[string]struct {
		prefix string
		opts   registry.StoreListOptions
		keys   string
		rev    uint64
	}{
		"All":            {"/", registry.StoreListOptions{}, "[/a /a/1 /a/2 /ab /c]", 8},
		"Prefix":         {"/a/", registry.StoreListOptions{}, "[/a/1 /a/2]", 8},
		"NoMatch":        {"/x/", registry.StoreListOptions{}, "[]", 8},
		"Any":            {"/", registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: raftstore.Any}}, "[/a /a/1 /a/2 /ab /c]", 8},
		"ExactBeforeDel": {"/", registry.StoreListOptions{ReadOptions: exact(3)}, "[/a /b]", 3},
		"ExactAfterDel":  {"/", registry.StoreListOptions{ReadOptions: exact(4)}, "[/a]", 4},
		"ExactCurrent":   {"/", registry.StoreListOptions{ReadOptions: exact(8)}, "[/a /a/1 /a/2 /ab /c]", 8},
		"Predicate":      {"/", registry.StoreListOptions{Predicate: valuePredicate("v1")}, "[/a/2 /ab /c]", 8},
	} {
		t.Run(name, func(t *testing.T) {
			l := mustList(t, s, tc.prefix, tc.opts)
			if got := fmt.Sprint(keys(l.Items)); got != tc.keys || l.Revision != tc.rev {
				t.Errorf("list: %s at %d, want %s at %d", got, l.Revision, tc.keys, tc.rev)
			}
			if l.Continue != "" || l.RemainingItemCount != nil {
				t.Errorf("a complete list has continue %q, remaining %v", l.Continue, l.RemainingItemCount)
			}
		})
	}
}

func TestListItemsAreStamped(t *testing.T) {
	s := New()
	history(t, s)
	l := mustList(t, s, "/", registry.StoreListOptions{ReadOptions: exact(3)})
	checkObject(t, "item /a at 3", l.Items[0], "/a", 3, "v2")
	checkObject(t, "item /b at 3", l.Items[1], "/b", 2, "v1")
	if l.Items == nil || mustList(t, New(), "/", registry.StoreListOptions{}).Items == nil {
		t.Errorf("list items are nil, want an empty slice")
	}
}

// paginate lists prefix page by page and returns the keys of each page,
// checking that every page is served at the first page's revision.
func paginate(t *testing.T, s *Storage, prefix string, opts registry.StoreListOptions, between func()) ([]string, []*registry.ListResult) {
	t.Helper()
	var pages []string
	var results []*registry.ListResult
	for {
		l := mustList(t, s, prefix, opts)
		pages, results = append(pages, fmt.Sprint(keys(l.Items))), append(results, l)
		if l.Revision != results[0].Revision {
			t.Errorf("page %d served at %d, the first at %d", len(pages), l.Revision, results[0].Revision)
		}
		if l.Continue == "" {
			return pages, results
		}
		between()
		opts = registry.StoreListOptions{Limit: opts.Limit, Predicate: opts.Predicate, Continue: l.Continue}
	}
}

func TestListPagination(t *testing.T) {
	for name, tc := range map[string]struct {
		opts      registry.StoreListOptions
		pages     string
		remaining []int64 // -1: none
	}{
		"Limit2":          {registry.StoreListOptions{Limit: 2}, "[[/p/0 /p/1] [/p/2 /p/3] [/p/4]]", []int64{3, 1, -1}},
		"LimitAll":        {registry.StoreListOptions{Limit: 5}, "[[/p/0 /p/1 /p/2 /p/3 /p/4]]", []int64{-1}},
		"LimitMore":       {registry.StoreListOptions{Limit: 9}, "[[/p/0 /p/1 /p/2 /p/3 /p/4]]", []int64{-1}},
		"Predicate":       {registry.StoreListOptions{Limit: 2, Predicate: valuePredicate("x")}, "[[/p/0 /p/2] [/p/4]]", []int64{-1, -1}},
		"PredicateNoneOf": {registry.StoreListOptions{Limit: 1, Predicate: valuePredicate("y")}, "[[/p/1] [/p/3] []]", []int64{-1, -1, -1}},
	} {
		t.Run(name, func(t *testing.T) {
			s := New()
			for i := range 5 {
				mustCreate(t, s, fmt.Sprintf("/p/%d", i), object("p", "u", []string{"x", "y"}[i%2]))
			}
			mustCreate(t, s, "/q", object("q", "u", "x"))
			n := 0
			write := func() { // writes between pages change nothing in the list
				n++
				mustCreate(t, s, fmt.Sprintf("/p/new%d", n), object("p", "u", "x"))
				mustDelete(t, s, "/p/3")
				mustCreate(t, s, "/p/3", object("p", "u", "x"))
			}
			pages, results := paginate(t, s, "/p/", tc.opts, write)
			if got := fmt.Sprint(pages); got != tc.pages {
				t.Errorf("pages %s, want %s", got, tc.pages)
			}
			for i, l := range results {
				got := int64(-1)
				if l.RemainingItemCount != nil {
					got = *l.RemainingItemCount
				}
				if i < len(tc.remaining) && got != tc.remaining[i] {
					t.Errorf("page %d: remaining %d, want %d", i, got, tc.remaining[i])
				}
			}
		})
	}
}

func TestContinueToken(t *testing.T) {
	s := New()
	history(t, s)
	l := mustList(t, s, "/", registry.StoreListOptions{Limit: 1})
	rev, err := raftstore.ContinueRevision(l.Continue, "/")
	if err != nil || rev != 5 {
		t.Errorf("raftstore.ContinueRevision of this storage's token: %d %v, want 5", rev, err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	for name, token := range map[string]string{
		"NotBase64":     "!!!",
		"NotJSON":       b64([]byte("not json")),
		"OtherVersion":  b64([]byte(`{"v":"raftapi/0","rv":1,"start":"/a/x"}`)),
		"ZeroRevision":  raftstore.EncodeContinue(0, "/a/x"),
		"OutsidePrefix": raftstore.EncodeContinue(5, "/b/x"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := s.List(context.Background(), "/a/", registry.StoreListOptions{Continue: token})
			checkError(t, "list", err, raftstore.ErrCodeBadRequest, "", 0)
		})
	}
}

func TestExpiredContinuation(t *testing.T) {
	s := New()
	history(t, s)
	l := mustList(t, s, "/", registry.StoreListOptions{Limit: 1, ReadOptions: exact(2)})
	if fmt.Sprint(keys(l.Items)) != "[/a]" || l.Continue == "" {
		t.Fatalf("first page at 2: %v, continue %q", keys(l.Items), l.Continue)
	}
	if err := s.Compact(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	_, err := s.List(context.Background(), "/", registry.StoreListOptions{Limit: 1, Continue: l.Continue})
	e := checkError(t, "compacted continuation", err, raftstore.ErrCodeExpired, "", 2)
	if e.Continue == "" {
		t.Fatalf("expired continuation without a fresh token")
	}
	next := mustList(t, s, "/", registry.StoreListOptions{Continue: e.Continue})
	if fmt.Sprint(keys(next.Items)) != "[/c]" || next.Revision != 5 {
		t.Errorf("fresh token lists %v at %d, want [/c] at 5", keys(next.Items), next.Revision)
	}
}
