package api_test

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestJSONPatchLimits: kube-apiserver's JSON patch limits. A patch of
// copies that would double an object over and over stops at 3 MiB of
// copied bytes with a 422 (before, 150 copies in a 10 KB patch took 860
// MB); more than 10,000 operations is 413.
func TestJSONPatchLimits(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	s.do(t, http.MethodPost, "/api/v1/namespaces/default/configmaps",
		`{"metadata":{"name":"grow"},"data":{"a":"`+strings.Repeat("x", 1000)+`"}}`).wantCode(t, http.StatusCreated)

	var ops []string
	ops = append(ops, `{"op":"add","path":"/data/b","value":{"k":"`+strings.Repeat("y", 100)+`"}}`)
	for range 150 {
		ops = append(ops, `{"op":"copy","from":"/metadata","path":"/metadata/annotations"}`)
	}
	// Each copy doubles the metadata: without the limit this patch never
	// finishes (2^150 bytes). kube answers its generic 422.
	s.do(t, http.MethodPatch, "/api/v1/namespaces/default/configmaps/grow", "["+strings.Join(ops, ",")+"]",
		contentType(jsonPatch)).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)

	many := make([]string, 10001)
	for i := range many {
		many[i] = `{"op":"test","path":"/metadata/name","value":"grow"}`
	}
	st := s.do(t, http.MethodPatch, "/api/v1/namespaces/default/configmaps/grow", "["+strings.Join(many, ",")+"]",
		contentType(jsonPatch)).wantStatus(t, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge)
	if st.Message != "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001" {
		t.Errorf("operations limit message: %q", st.Message)
	}
}
