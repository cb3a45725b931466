package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// listWrite is one write of a list fixture: the configmap as stored, or
// a deletion of name when cm is nil.
type listWrite struct {
	rev  uint64
	name string
	cm   *corev1.ConfigMap
}

// listFixture is a namespace whose configmaps went through a known
// history, so the state at any revision can be computed.
type listFixture struct {
	ns     string
	writes []listWrite
	// old is a revision at which the state differs from the current one.
	old uint64
}

// newListFixture creates a, b and c (the state at f.old), then updates a,
// deletes b and creates d: the current state is {a, c, d}.
func newListFixture(t *testing.T, s *testServer) *listFixture {
	t.Helper()
	f := &listFixture{ns: newNamespace(t, s)}
	f.create(t, s, configMap("a", map[string]string{"env": "prod", "tier": "web"}, map[string]string{"v": "1"}))
	f.create(t, s, configMap("b", map[string]string{"env": "dev"}, map[string]string{"v": "1"}))
	f.create(t, s, configMap("c", map[string]string{"tier": "db"}, map[string]string{"v": "1"}))
	f.old = f.last()
	a := f.current("a")
	a.Data = map[string]string{"v": "2"}
	f.record(updateCM(t, s, a))
	deleteCM(t, s, f.ns, "b")
	f.writes = append(f.writes, listWrite{rev: f.revAfterDelete(t, s), name: "b"})
	f.create(t, s, configMap("d", map[string]string{"env": "prod"}, map[string]string{"v": "1"}))
	return f
}

// create creates cm in the fixture's namespace and records it.
func (f *listFixture) create(t *testing.T, s *testServer, cm *corev1.ConfigMap) {
	t.Helper()
	f.record(createCM(t, s, f.ns, cm))
}

// record notes a stored configmap.
func (f *listFixture) record(cm *corev1.ConfigMap) {
	f.writes = append(f.writes, listWrite{rev: rvOfCM(cm), name: cm.Name, cm: cm})
}

// revAfterDelete returns the revision of a deletion just made through s,
// the leader: a Most Recent list right after it is served at the delete's
// revision, as nothing else writes to the cluster once its system
// namespaces exist (see newTestCluster) and the fixture writes serially.
func (f *listFixture) revAfterDelete(t *testing.T, s *testServer) uint64 {
	t.Helper()
	l := listCMs(t, s, cmPath(f.ns))
	return rvOf(t, l.ResourceVersion)
}

// last returns the newest write's revision.
func (f *listFixture) last() uint64 { return f.writes[len(f.writes)-1].rev }

// current returns a copy of the newest stored version of name.
func (f *listFixture) current(name string) *corev1.ConfigMap {
	var out *corev1.ConfigMap
	for _, w := range f.writes {
		if w.name == name {
			out = w.cm
		}
	}
	return out.DeepCopy()
}

// stateAt returns the configmaps of the namespace as of revision rev.
func (f *listFixture) stateAt(rev uint64) []itemState {
	byName := map[string]*corev1.ConfigMap{}
	for _, w := range f.writes {
		if w.rev > rev {
			break
		}
		if w.cm == nil {
			delete(byName, w.name)
		} else {
			byName[w.name] = w.cm
		}
	}
	var cms []*corev1.ConfigMap
	for _, cm := range byName {
		cms = append(cms, cm)
	}
	return states(cms...)
}

// rvOfCM returns a stored configmap's revision; it panics on a malformed
// one, which the server never sends for an object it stored.
func rvOfCM(cm *corev1.ConfigMap) uint64 {
	var n uint64
	if _, err := fmt.Sscan(cm.ResourceVersion, &n); err != nil {
		panic(fmt.Sprintf("resourceVersion %q: %v", cm.ResourceVersion, err))
	}
	return n
}

// pages lists path with query q and follows continue tokens (sending limit
// and continue only, as clients do) to the end. It returns every page.
func pages(t *testing.T, s *testServer, path string, q url.Values) []*cmList {
	t.Helper()
	l := listCMs(t, s, path+"?"+q.Encode())
	out := []*cmList{l}
	for l.Continue != "" {
		if len(out) > 20 {
			t.Fatalf("list of %s did not end after 20 pages", path)
		}
		next := url.Values{"continue": {l.Continue}}
		if lim := q.Get("limit"); lim != "" {
			next.Set("limit", lim)
		}
		l = listCMs(t, s, path+"?"+next.Encode())
		out = append(out, l)
	}
	return out
}

// checkPages checks that pages form one consistent list: one
// resourceVersion, at most limit items each (0: no limit), and together
// the fixture's state at that revision. It returns the revision.
func (f *listFixture) checkPages(t *testing.T, ps []*cmList, limit int) uint64 {
	t.Helper()
	rv := ps[0].ResourceVersion
	var items []corev1.ConfigMap
	for i, p := range ps {
		if p.ResourceVersion != rv {
			t.Errorf("page %d: resourceVersion %s, want the first page's %s", i, p.ResourceVersion, rv)
		}
		if limit > 0 && len(p.Items) > limit {
			t.Errorf("page %d: %d items, limit %d", i, len(p.Items), limit)
		}
		if p.Continue != "" && len(p.Items) == 0 {
			t.Errorf("page %d: empty but with a continue token", i)
		}
		items = append(items, p.Items...)
	}
	n := rvOf(t, rv)
	if got, want := stateOf(items), f.stateAt(n); !slices.Equal(got, want) {
		t.Errorf("list at %d holds %v, want the state at %d: %v", n, got, n, want)
	}
	return n
}

// listSemantics is what a cell of the list table promises.
type listSemantics int

const (
	mostRecent listSemantics = iota
	anyState
	notOlderThan
	exact
	invalid
)

// TestListResourceVersion checks every cell of the list table of
// DESIGN.md (resourceVersionMatch × paging × resourceVersion), through
// the leader and through a follower.
func TestListResourceVersion(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 3)
	f := newListFixture(t, tc.Leader)
	old := fmt.Sprint(f.old)

	cells := []struct {
		match string
		limit int
		rv    string // "unset", "0" or a revision
		want  listSemantics
	}{
		{"", 0, "unset", mostRecent},
		{"", 0, "0", anyState},
		{"", 0, old, notOlderThan},
		{"", 2, "unset", mostRecent},
		{"", 2, "0", anyState},
		{"", 2, old, exact},
		{"Exact", 0, "unset", invalid},
		{"Exact", 0, "0", invalid},
		{"Exact", 0, old, exact},
		{"Exact", 2, "unset", invalid},
		{"Exact", 2, "0", invalid},
		{"Exact", 2, old, exact},
		{"NotOlderThan", 0, "unset", invalid},
		{"NotOlderThan", 0, "0", anyState},
		{"NotOlderThan", 0, old, notOlderThan},
		{"NotOlderThan", 2, "unset", invalid},
		{"NotOlderThan", 2, "0", anyState},
		{"NotOlderThan", 2, old, notOlderThan},
	}
	for _, cell := range cells {
		rvName := cell.rv
		if rvName != "unset" && rvName != "0" {
			rvName = "N"
		}
		name := fmt.Sprintf("match=%s/limit=%d/rv=%s", cell.match, cell.limit, rvName)
		t.Run(name, func(t *testing.T) {
			q := url.Values{}
			if cell.match != "" {
				q.Set("resourceVersionMatch", cell.match)
			}
			if cell.limit > 0 {
				q.Set("limit", fmt.Sprint(cell.limit))
			}
			if cell.rv != "unset" {
				q.Set("resourceVersion", cell.rv)
			}
			for _, s := range []*testServer{tc.Leader, tc.Follower} {
				if cell.want == invalid {
					st := s.do(t, http.MethodGet, cmPath(f.ns)+"?"+q.Encode(), nil).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
					wantCause(t, st, "", "resourceVersionMatch")
					continue
				}
				ps := pages(t, s, cmPath(f.ns), q)
				if cell.limit > 0 && len(ps) < 2 && (cell.want == exact || cell.want == mostRecent) {
					t.Errorf("node %d: limit %d on 3 items gave one page", s.Index, cell.limit)
				}
				rv := f.checkPages(t, ps, cell.limit)
				switch cell.want {
				case mostRecent:
					if rv < f.last() {
						t.Errorf("node %d: Most Recent list at %d misses the acknowledged write at %d", s.Index, rv, f.last())
					}
				case anyState:
					if s == tc.Leader && rv < f.last() {
						t.Errorf("leader: Any list at %d older than the leader's own write at %d", rv, f.last())
					}
				case notOlderThan:
					if rv < f.old {
						t.Errorf("node %d: Not older than %d list at %d", s.Index, f.old, rv)
					}
				case exact:
					if rv != f.old {
						t.Errorf("node %d: Exact list at %d, want %d", s.Index, rv, f.old)
					}
				}
			}
		})
	}

	t.Run("ExactShowsOldResourceVersions", func(t *testing.T) {
		l := listCMs(t, tc.Follower, cmPath(f.ns)+query("resourceVersion", old, "resourceVersionMatch", "Exact"))
		want := []itemState{}
		for _, w := range f.writes[:3] {
			want = append(want, cmState(w.cm))
		}
		slices.Sort(want)
		if got := stateOf(l.Items); !slices.Equal(got, want) {
			t.Errorf("Exact list at %s: %v, want a, b and c as first written: %v", old, got, want)
		}
	})

	t.Run("FarFutureIsTooLarge", func(t *testing.T) {
		future := fmt.Sprint(tc.Leader.Store.Revision() + 1_000_000)
		for _, r := range tc.Follower.getAll(t,
			cmPath(f.ns)+query("resourceVersion", future),
			cmPath(f.ns)+query("resourceVersion", future, "resourceVersionMatch", "NotOlderThan"),
			cmPath(f.ns)+query("resourceVersion", future, "resourceVersionMatch", "Exact"),
			cmPath(f.ns)+query("resourceVersion", future, "limit", "1"),
		) {
			wantTooLarge(t, r)
		}
	})
}

// TestListContinue checks the continue rows of the list table: every page
// is served at the first page's revision whatever is written in between,
// and the invalid combinations are refused.
func TestListContinue(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 3)

	for _, rv := range []string{"unset", "0"} {
		t.Run("ConsistentPagesRV="+rv, func(t *testing.T) {
			f := newListFixture(t, tc.Leader)
			q := url.Values{"limit": {"1"}}
			// A Most Recent first page comes from the follower; an Any one
			// from the leader, whose local state holds the whole fixture.
			firstFrom := tc.Follower
			if rv != "unset" {
				q.Set("resourceVersion", rv)
				firstFrom = tc.Leader
			}
			first := listCMs(t, firstFrom, cmPath(f.ns)+"?"+q.Encode())
			if first.Continue == "" {
				t.Fatalf("limit 1 on 3 items gave no continue token")
			}
			// Writes between pages: change an item not yet returned, delete
			// one, add one.
			d := f.current("d")
			d.Data = map[string]string{"v": "between-pages"}
			f.record(updateCM(t, tc.Leader, d))
			deleteCM(t, tc.Leader, f.ns, "c")
			f.writes = append(f.writes, listWrite{rev: f.revAfterDelete(t, tc.Leader), name: "c"})
			f.create(t, tc.Leader, configMap("e", nil, nil))

			ps := []*cmList{first}
			for l := first; l.Continue != ""; {
				// Every node serves the same page for a token.
				path := cmPath(f.ns) + query("limit", "1", "continue", l.Continue)
				onLeader := listCMs(t, tc.Leader, path)
				l = listCMs(t, tc.Follower, path)
				if got, want := stateOf(onLeader.Items), stateOf(l.Items); !slices.Equal(got, want) || onLeader.Continue != l.Continue {
					t.Errorf("leader serves %v for a token, follower %v", got, want)
				}
				ps = append(ps, l)
			}
			rev := f.checkPages(t, ps, 1)
			if rev >= f.writes[len(f.writes)-3].rev {
				t.Errorf("pages at %d include the writes made between pages", rev)
			}
			if len(ps) != 3 {
				t.Errorf("%d pages, want 3 (a, c, d at the first page's revision)", len(ps))
			}
		})
	}

	f := newListFixture(t, tc.Leader)
	first := listCMs(t, tc.Leader, cmPath(f.ns)+query("limit", "1"))
	token := first.Continue

	t.Run("ContinueWithRVIsBadRequest", func(t *testing.T) {
		tc.Leader.do(t, http.MethodGet, cmPath(f.ns)+query("limit", "1", "continue", token, "resourceVersion", first.ResourceVersion), nil).
			wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	})

	t.Run("ContinueWithMatchIsInvalid", func(t *testing.T) {
		for _, m := range []string{"Exact", "NotOlderThan"} {
			for _, rv := range []string{"", "0", first.ResourceVersion} {
				q := url.Values{"limit": {"1"}, "continue": {token}, "resourceVersionMatch": {m}}
				if rv != "" {
					q.Set("resourceVersion", rv)
				}
				st := tc.Leader.do(t, http.MethodGet, cmPath(f.ns)+"?"+q.Encode(), nil).
					wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
				wantCause(t, st, "", "resourceVersionMatch")
			}
		}
	})

	t.Run("UndecodableTokenIsBadRequest", func(t *testing.T) {
		for _, tok := range []string{"not-a-token", "!!!", "eyJ2IjoieCJ9"} {
			tc.Leader.do(t, http.MethodGet, cmPath(f.ns)+query("limit", "1", "continue", tok), nil).
				wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		}
	})
}

// TestListValidation checks the list parameters kube-apiserver refuses.
func TestListValidation(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	ns := newNamespace(t, tc.Leader)
	rv := fmt.Sprint(tc.Leader.Store.Revision())

	invalidCases := []struct {
		name, field string
		q           string
	}{
		{"UnknownMatch", "resourceVersionMatch", query("resourceVersion", rv, "resourceVersionMatch", "Newest")},
		{"MatchWithoutRV", "resourceVersionMatch", query("resourceVersionMatch", "NotOlderThan")},
		{"ExactZero", "resourceVersionMatch", query("resourceVersion", "0", "resourceVersionMatch", "Exact")},
		{"SendInitialEventsOnList", "sendInitialEvents", query("sendInitialEvents", "true")},
	}
	for _, c := range invalidCases {
		t.Run(c.name, func(t *testing.T) {
			st := tc.Leader.do(t, http.MethodGet, cmPath(ns)+c.q, nil).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
			wantCause(t, st, "", c.field)
			if st.Details == nil || st.Details.Kind != "ListOptions" || st.Details.Group != "meta.k8s.io" {
				t.Errorf("details %+v, want kind ListOptions group meta.k8s.io", st.Details)
			}
		})
	}

	badCases := []struct{ name, q string }{
		{"MalformedRV", query("resourceVersion", "abc")},
		{"NegativeRV", query("resourceVersion", "-5")},
		{"MalformedLimit", query("limit", "many")},
		{"MalformedLabelSelector", query("labelSelector", "a in (")},
		{"MalformedFieldSelector", query("fieldSelector", "metadata.name")},
		{"UnsupportedFieldLabel", query("fieldSelector", "spec.nodeName=x")},
		{"UnsupportedConfigMapFieldLabel", query("fieldSelector", "data.key=x")},
	}
	for _, c := range badCases {
		t.Run(c.name, func(t *testing.T) {
			tc.Leader.do(t, http.MethodGet, cmPath(ns)+c.q, nil).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		})
	}
}
