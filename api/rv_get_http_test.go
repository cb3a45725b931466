package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/raftstore"
)

// getCM reads a configmap through s with the given query, expecting 200.
func getCM(t testing.TB, s *testServer, ns, name, q string) *corev1.ConfigMap {
	t.Helper()
	var cm corev1.ConfigMap
	s.do(t, http.MethodGet, cmPath(ns, name)+q, nil).wantCode(t, http.StatusOK).decode(t, &cm)
	return &cm
}

// wantTooLarge checks a 504 "Too large resource version" answer.
func wantTooLarge(t testing.TB, r *response) {
	t.Helper()
	st := r.wantStatus(t, http.StatusGatewayTimeout, metav1.StatusReasonTimeout)
	r.wantRetryAfter(t)
	wantCause(t, st, metav1.CauseTypeResourceVersionTooLarge, "")
	if !strings.Contains(st.Message, "Too large resource version") {
		t.Errorf("message %q lacks %q", st.Message, "Too large resource version")
	}
	if st.Details == nil || st.Details.RetryAfterSeconds <= 0 {
		t.Errorf("details %+v: want retryAfterSeconds > 0", st.Details)
	}
}

// TestGetResourceVersion checks the get column of the semantics table:
// unset is Most Recent, "0" is Any, N is Not older than N.
func TestGetResourceVersion(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 3)
	ns := newNamespace(t, tc.Leader)
	cm := createCM(t, tc.Leader, ns, configMap("a", nil, map[string]string{"v": "0"}))

	t.Run("UnsetIsMostRecentOnFollower", func(t *testing.T) {
		cur := cm
		for i := 1; i <= 5; i++ {
			cur.Data = map[string]string{"v": fmt.Sprint(i)}
			cur = updateCM(t, tc.Leader, cur)
			got := getCM(t, tc.Follower, ns, "a", "")
			if got.ResourceVersion != cur.ResourceVersion || got.Data["v"] != fmt.Sprint(i) {
				t.Fatalf("follower read after write %d: rv %s data %v, want rv %s v=%d", i, got.ResourceVersion, got.Data, cur.ResourceVersion, i)
			}
		}
		// A later write from the follower is visible on the leader too.
		cur.Data = map[string]string{"v": "from-follower"}
		cur = updateCM(t, tc.Follower, cur)
		if got := getCM(t, tc.Leader, ns, "a", ""); got.ResourceVersion != cur.ResourceVersion {
			t.Fatalf("leader read: rv %s, want %s", got.ResourceVersion, cur.ResourceVersion)
		}
	})

	t.Run("ZeroIsAny", func(t *testing.T) {
		latest := getCM(t, tc.Leader, ns, "a", "")
		if got := getCM(t, tc.Leader, ns, "a", query("resourceVersion", "0")); got.ResourceVersion != latest.ResourceVersion {
			t.Errorf("leader rv=0: rv %s, want the leader's state %s", got.ResourceVersion, latest.ResourceVersion)
		}
		waitFor(t, "the follower's local state to reach the write", func() bool {
			r := tc.Follower.do(t, http.MethodGet, cmPath(ns, "a")+query("resourceVersion", "0"), nil)
			var got corev1.ConfigMap
			return r.Code == http.StatusOK && r.tryDecode(&got) && got.ResourceVersion == latest.ResourceVersion
		})
	})

	t.Run("NIsNotOlderThan", func(t *testing.T) {
		first := getCM(t, tc.Leader, ns, "a", "")
		next := first.DeepCopy()
		next.Data = map[string]string{"v": "newer"}
		next = updateCM(t, tc.Leader, next)
		for _, s := range []*testServer{tc.Leader, tc.Follower} {
			// Asked for an older revision, the node serves its current state,
			// not the object as it was (that would be Exact).
			got := getCM(t, s, ns, "a", query("resourceVersion", first.ResourceVersion))
			if rvOf(t, got.ResourceVersion) < rvOf(t, first.ResourceVersion) {
				t.Errorf("node %d: rv %s older than requested %s", s.Index, got.ResourceVersion, first.ResourceVersion)
			}
			got = getCM(t, s, ns, "a", query("resourceVersion", next.ResourceVersion))
			if got.ResourceVersion != next.ResourceVersion || got.Data["v"] != "newer" {
				t.Errorf("node %d: rv %s data %v, want the write at %s", s.Index, got.ResourceVersion, got.Data, next.ResourceVersion)
			}
		}
	})

	t.Run("FarFutureIsTooLarge", func(t *testing.T) {
		future := fmt.Sprint(tc.Leader.Store.Revision() + 1_000_000)
		path := cmPath(ns, "a") + query("resourceVersion", future)
		leader, follower := tc.Leader.start(path), tc.Follower.start(path)
		wantTooLarge(t, leader.wait(t))
		wantTooLarge(t, follower.wait(t))
	})

	t.Run("MalformedIsBadRequest", func(t *testing.T) {
		for _, rv := range []string{"abc", "-1", "1.5", "0x10"} {
			tc.Leader.do(t, http.MethodGet, cmPath(ns, "a")+query("resourceVersion", rv), nil).
				wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		}
	})

	t.Run("MissingIsNotFound", func(t *testing.T) {
		for _, q := range []string{"", query("resourceVersion", "0"), query("resourceVersion", cm.ResourceVersion)} {
			st := tc.Follower.do(t, http.MethodGet, cmPath(ns, "missing")+q, nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
			if st.Details == nil || st.Details.Name != "missing" || st.Details.Kind != "configmaps" {
				t.Errorf("details %+v, want name missing kind configmaps", st.Details)
			}
		}
	})

	t.Run("ZeroOnLaggingFollowerDoesNotWait", func(t *testing.T) {
		before := getCM(t, tc.Follower, ns, "a", "")
		heal := tc.isolate(t, tc.Follower)
		defer heal()
		next := before.DeepCopy()
		next.Data = map[string]string{"v": "while-isolated"}
		updateCM(t, tc.Leader, next)
		start := time.Now()
		got := getCM(t, tc.Follower, ns, "a", query("resourceVersion", "0"))
		if got.ResourceVersion != before.ResourceVersion {
			t.Errorf("isolated follower rv=0: rv %s, want its local state %s", got.ResourceVersion, before.ResourceVersion)
		}
		if d := time.Since(start); d >= waitTimeout {
			t.Errorf("isolated follower rv=0 took %v: Any must not wait", d)
		}
	})
}

// TestNotOlderThanWaitsOnFollower checks that a follower asked for a
// revision it has not applied yet waits for it and then answers, for a
// get and for a list.
func TestNotOlderThanWaitsOnFollower(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 3, func(c *raftstore.Config) { c.WaitTimeout = 15 * time.Second })
	ns := newNamespace(t, tc.Leader)
	cm := createCM(t, tc.Leader, ns, configMap("a", nil, map[string]string{"v": "1"}))
	getCM(t, tc.Follower, ns, "a", query("resourceVersion", cm.ResourceVersion))

	heal := tc.isolate(t, tc.Follower)
	cm.Data = map[string]string{"v": "2"}
	cm = updateCM(t, tc.Leader, cm)
	n := rvOf(t, cm.ResourceVersion)
	if rev := tc.Follower.Store.Revision(); rev >= n {
		t.Fatalf("isolated follower already at %d >= %d", rev, n)
	}
	get := tc.Follower.start(cmPath(ns, "a") + query("resourceVersion", cm.ResourceVersion))
	list := tc.Follower.start(cmPath(ns) + query("resourceVersion", cm.ResourceVersion, "resourceVersionMatch", "NotOlderThan"))
	waitFor(t, "both reads to reach the follower", func() bool { return tc.Follower.inflight.Load() >= 2 })
	if rev := tc.Follower.Store.Revision(); rev >= n {
		t.Fatalf("isolated follower reached %d >= %d before healing", rev, n)
	}
	heal()

	var got corev1.ConfigMap
	get.wait(t).wantCode(t, http.StatusOK).decode(t, &got)
	if got.ResourceVersion != cm.ResourceVersion || got.Data["v"] != "2" {
		t.Errorf("get: rv %s data %v, want rv %s v=2", got.ResourceVersion, got.Data, cm.ResourceVersion)
	}
	var l corev1.ConfigMapList
	list.wait(t).wantCode(t, http.StatusOK).decode(t, &l)
	if rvOf(t, l.ResourceVersion) < n {
		t.Errorf("list rv %s older than %d", l.ResourceVersion, n)
	}
	if want := states(cm); !slices.Equal(stateOf(l.Items), want) {
		t.Errorf("list items %v, want %v", stateOf(l.Items), want)
	}
}
