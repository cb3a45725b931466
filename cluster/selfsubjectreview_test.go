package cluster

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// TestSelfSubjectReview: POST answers 201 with the caller as the server
// sees it, impersonation applied; anonymous callers are refused as other
// API paths; other methods are 405.
func TestSelfSubjectReview(t *testing.T) {
	n := &Node{api: &apiSecurity{tls: &tls.Config{}, tokens: staticTokens{
		"t-alice": {Name: "alice", UID: "u-a", Groups: []string{"dev"}},
		"t-admin": {Name: "root", Groups: []string{"system:masters"}},
	}}}
	h := n.withAuth(selfSubjectReviewHandler())
	do := func(method, token string, headers ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, SelfSubjectReviewPath, strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Add(headers[i], headers[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for _, tc := range []struct {
		token   string
		headers []string
		want    authenticationv1.UserInfo
	}{
		{"t-alice", nil, authenticationv1.UserInfo{Username: "alice", UID: "u-a", Groups: []string{"dev", "system:authenticated"}}},
		{"t-admin", []string{"Impersonate-User", "bob", "Impersonate-Extra-Team", "x"}, authenticationv1.UserInfo{Username: "bob", Groups: []string{"system:authenticated"}, Extra: map[string]authenticationv1.ExtraValue{"team": {"x"}}}},
	} {
		w := do(http.MethodPost, tc.token, tc.headers...)
		var got authenticationv1.SelfSubjectReview
		if err := json.Unmarshal(w.Body.Bytes(), &got); w.Code != http.StatusCreated || err != nil {
			t.Fatalf("%s: %d %s", tc.token, w.Code, w.Body)
		}
		u := got.Status.UserInfo
		if got.Kind != "SelfSubjectReview" || u.Username != tc.want.Username || u.UID != tc.want.UID || !slices.Equal(u.Groups, tc.want.Groups) || len(u.Extra) != len(tc.want.Extra) {
			t.Errorf("%s: %+v, want %+v", tc.token, got, tc.want)
		}
	}
	if w := do(http.MethodPost, ""); w.Code != http.StatusForbidden {
		t.Errorf("anonymous: %d %s", w.Code, w.Body)
	}
	if w := do(http.MethodGet, "t-alice"); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d %s", w.Code, w.Body)
	}
}
