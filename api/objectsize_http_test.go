package api_test

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStoredObjectSizeLimit: a write whose object would be stored over
// etcd's 1.5 MiB is answered as kube-apiserver answers when etcd refuses
// it (500, "etcdserver: request is too large"), whether the body was
// under the 3 MiB body limit on create or the object grew by a patch;
// nothing is stored. Before, a Lease of 2 MiB was stored.
func TestStoredObjectSizeLimit(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	const leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	holder := strings.Repeat("h", 2<<20)
	st := s.do(t, http.MethodPost, leases, `{"metadata":{"name":"big"},"spec":{"holderIdentity":"`+holder+`"}}`).
		wantStatus(t, http.StatusInternalServerError, metav1.StatusReasonUnknown)
	if st.Message != "etcdserver: request is too large" {
		t.Errorf("create: message %q", st.Message)
	}
	s.do(t, http.MethodGet, leases+"/big", nil).wantCode(t, http.StatusNotFound)

	s.do(t, http.MethodPost, leases, `{"metadata":{"name":"grows"},"spec":{"holderIdentity":"me"}}`).wantCode(t, http.StatusCreated)
	st = s.do(t, http.MethodPatch, leases+"/grows", `{"spec":{"holderIdentity":"`+holder+`"}}`, contentType(mergePatch)).
		wantStatus(t, http.StatusInternalServerError, metav1.StatusReasonUnknown)
	if st.Message != "etcdserver: request is too large" {
		t.Errorf("patch: message %q", st.Message)
	}
	if body := s.do(t, http.MethodGet, leases+"/grows", nil).wantCode(t, http.StatusOK).Body; !strings.Contains(string(body), `"holderIdentity":"me"`) {
		t.Errorf("the lease after the refused patch: %s", body)
	}
}
