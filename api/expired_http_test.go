package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/raftstore/storetest"
)

// TestCompactedHistory checks the answers for revisions that have fallen
// out of the history window: 410 Expired for Exact lists, for continue
// tokens (with a fresh token for an inconsistent continuation) and for
// watches, while Not older than reads still succeed.
func TestCompactedHistory(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	f := newListFixture(t, s)
	old := fmt.Sprint(f.old)
	first := listCMs(t, s, cmPath(f.ns)+query("limit", "1"))
	if first.Continue == "" || len(first.Items) != 1 || first.Items[0].Name != "a" {
		t.Fatalf("first page %v continue %q, want a and a token", namesOf(first.Items), first.Continue)
	}
	// Change an item the token has not returned yet, so that the
	// inconsistent continuation is visibly at a newer revision.
	c := f.current("c")
	c.Data = map[string]string{"v": "after-compaction"}
	c = updateCM(t, s, c)
	f.record(c)

	ctx := storetest.Context(t)
	if err := s.Store.Compact(ctx, s.Store.Revision()); err != nil {
		t.Fatalf("compact: %v", err)
	}
	waitFor(t, "the compaction to apply", func() bool { return s.Store.Status().Compacted >= rvOfCM(c) })

	t.Run("ExactListIsExpired", func(t *testing.T) {
		for _, q := range []string{
			query("resourceVersion", old, "resourceVersionMatch", "Exact"),
			query("resourceVersion", old, "limit", "1"),
			query("resourceVersion", old, "resourceVersionMatch", "Exact", "limit", "1"),
		} {
			s.do(t, http.MethodGet, cmPath(f.ns)+q, nil).wantStatus(t, http.StatusGone, metav1.StatusReasonExpired)
		}
	})

	t.Run("NotOlderThanStillServes", func(t *testing.T) {
		for _, q := range []string{
			query("resourceVersion", old),
			query("resourceVersion", old, "resourceVersionMatch", "NotOlderThan"),
		} {
			l := listCMs(t, s, cmPath(f.ns)+q)
			f.checkPages(t, []*cmList{l}, 0)
		}
		getCM(t, s, f.ns, "a", query("resourceVersion", old))
	})

	t.Run("ExpiredContinue", func(t *testing.T) {
		r := s.do(t, http.MethodGet, cmPath(f.ns)+query("limit", "1", "continue", first.Continue), nil)
		st := r.wantStatus(t, http.StatusGone, metav1.StatusReasonExpired)
		if st.Continue == "" {
			t.Fatalf("410 for an expired continue token carries no metadata.continue: %s", r.Body)
		}
		if st.Continue == first.Continue {
			t.Errorf("410 hands back the expired token itself")
		}
		if !strings.Contains(st.Message, "continue") {
			t.Errorf("message %q does not mention the continue token", st.Message)
		}
		// The fresh token continues after a, at the current state.
		ps := pages(t, s, cmPath(f.ns), url.Values{"limit": {"1"}, "continue": {st.Continue}})
		var names []string
		for _, p := range ps {
			if rvOf(t, p.ResourceVersion) < rvOfCM(c) {
				t.Errorf("continuation page at %s, older than the compaction", p.ResourceVersion)
			}
			for _, it := range p.Items {
				names = append(names, it.Name)
				if it.Name == "c" && it.ResourceVersion != c.ResourceVersion {
					t.Errorf("continuation shows c at %s, want its current version %s", it.ResourceVersion, c.ResourceVersion)
				}
			}
		}
		if !slices.Equal(names, []string{"c", "d"}) {
			t.Errorf("continuation holds %v, want c and d (the items after a)", names)
		}
	})

	t.Run("WatchIsExpired", func(t *testing.T) {
		w, r := openWatch(t, s, watchPath(f.ns, "resourceVersion", old))
		if r != nil {
			r.wantStatus(t, http.StatusGone, metav1.StatusReasonExpired)
			return
		}
		ev := w.next(t)
		if ev.Type != "ERROR" {
			t.Fatalf("watch from a compacted revision: %v, want ERROR", ev)
		}
		var st metav1.Status
		if err := json.Unmarshal(ev.Object, &st); err != nil {
			t.Fatalf("ERROR event object is not a Status: %v: %s", err, ev.Object)
		}
		if st.Kind != "Status" || st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired || st.Status != metav1.StatusFailure {
			t.Errorf("ERROR event Status %+v, want Failure 410 Expired", st)
		}
		w.wantClosed(t)
	})
}
