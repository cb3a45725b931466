package api_test

import (
	"fmt"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNoopUpdateOnLaggingFollower sends, through a follower, updates that
// change nothing against the version the follower may still hold while
// the leader has a newer one: one with the old resourceVersion must be
// a 409, one without must be written (the newer version replaced), never
// answered from the follower's stale state as if done.
func TestNoopUpdateOnLaggingFollower(t *testing.T) {
	tc := newTestCluster(t, 3)
	l, f := tc.Leader, tc.Follower
	const path = "/api/v1/namespaces/default/configmaps"
	for i := range 20 {
		name := fmt.Sprintf("noop-%d", i)
		var old map[string]any
		l.do(t, http.MethodPost, path, map[string]any{"metadata": map[string]any{"name": name}, "data": map[string]any{"k": "a"}}).wantCode(t, http.StatusCreated).decode(t, &old)
		waitFor(t, "the follower to have "+name, func() bool {
			return f.do(t, http.MethodGet, path+"/"+name+"?resourceVersion=0", nil).Code == http.StatusOK
		})

		l.do(t, http.MethodPut, path+"/"+name, map[string]any{"metadata": map[string]any{"name": name}, "data": map[string]any{"k": "b"}}).wantCode(t, http.StatusOK)
		f.do(t, http.MethodPut, path+"/"+name, old).wantStatus(t, http.StatusConflict, metav1.StatusReasonConflict)

		l.do(t, http.MethodPut, path+"/"+name, map[string]any{"metadata": map[string]any{"name": name}, "data": map[string]any{"k": "c"}}).wantCode(t, http.StatusOK)
		var got map[string]any
		f.do(t, http.MethodPut, path+"/"+name, map[string]any{"metadata": map[string]any{"name": name}, "data": map[string]any{"k": "b"}}).wantCode(t, http.StatusOK)
		l.do(t, http.MethodGet, path+"/"+name, nil).wantCode(t, http.StatusOK).decode(t, &got)
		if got["data"].(map[string]any)["k"] != "b" {
			t.Fatalf("%s after an acknowledged update to b through a follower: data %v", name, got["data"])
		}
	}
}
