package cluster

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestImpersonation: system:masters, and whoever the policy lets
// impersonate, may act as another user, with groups,
// uid and extras, and is then authorized as that user; anyone else gets
// kube's 403 for the first thing refused; groups without a user are
// kube's error.
func TestImpersonation(t *testing.T) {
	n := &Node{api: &apiSecurity{tls: &tls.Config{}, tokens: staticTokens{
		"t-admin": {Name: "root", Groups: []string{"system:masters"}},
		"t-alice": {Name: "alice"},
		"t-carol": {Name: "carol", Groups: []string{"impersonators"}},
	}}, authz: testPolicy()}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := UserFrom(r.Context())
		b, _ := json.Marshal(u)
		w.Header().Set("X-User", string(b))
		if r.Header.Get(impersonateUser) != "" {
			t.Error("the impersonation headers reached the handler")
		}
	})
	for _, tc := range []struct {
		name, token, path string
		headers           map[string][]string
		code              int
		want              string // in X-User on 200, in the body otherwise
	}{
		{"admin as bob", "t-admin", "/api/v1/namespaces",
			map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Group": {"dev", "ops"}, "Impersonate-Uid": {"u-1"}, "Impersonate-Extra-Scopes%2Fread": {"a", "b"}},
			200, `{"Name":"bob","UID":"u-1","Groups":["dev","ops","system:authenticated"],"Extra":{"scopes/read":["a","b"]}}`},
		{"admin as anonymous", "t-admin", "/livez", map[string][]string{"Impersonate-User": {"system:anonymous"}}, 200,
			`{"Name":"system:anonymous","UID":"","Groups":["system:unauthenticated"],"Extra":null}`},
		{"as bob is authorized as bob", "t-admin", "/raftapi/v1/status", map[string][]string{"Impersonate-User": {"bob"}}, 403,
			`User \"bob\" cannot get path \"/raftapi/v1/status\"`},
		{"alice may not", "t-alice", "/api/v1/namespaces", map[string][]string{"Impersonate-User": {"bob"}}, 403,
			`users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope`},
		{"alice may not as a service account", "t-alice", "/api/v1/namespaces", map[string][]string{"Impersonate-User": {"system:serviceaccount:ns1:sa1"}}, 403,
			`serviceaccounts \"sa1\" is forbidden: User \"alice\" cannot impersonate resource \"serviceaccounts\" in API group \"\" in the namespace \"ns1\"`},
		{"carol may by policy", "t-carol", "/api/v1/namespaces", map[string][]string{"Impersonate-User": {"dave"}, "Impersonate-Group": {"dev"}}, 200,
			`{"Name":"dave","UID":"","Groups":["dev","system:authenticated"],"Extra":null}`},
		{"carol may not as a group the policy refuses", "t-carol", "/api/v1/namespaces", map[string][]string{"Impersonate-User": {"dave"}, "Impersonate-Group": {"system:masters"}}, 403,
			`groups \"system:masters\" is forbidden: User \"carol\" cannot impersonate resource \"groups\" in API group \"\" at the cluster scope`},
		{"group without user", "t-admin", "/api/v1/namespaces", map[string][]string{"Impersonate-Group": {"dev"}}, 500,
			`requested [Impersonate-Group=dev] without impersonating a user`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tc.path, nil)
			r.Header.Set("Authorization", "Bearer "+tc.token)
			for k, vs := range tc.headers {
				for _, v := range vs {
					r.Header.Add(k, v)
				}
			}
			w := httptest.NewRecorder()
			n.withAuth(echo).ServeHTTP(w, r)
			got := w.Body.String()
			if w.Code == 200 {
				got = w.Header().Get("X-User")
			}
			if w.Code != tc.code || !strings.Contains(got, tc.want) {
				t.Fatalf("%d %s\nwant %d with %s", w.Code, got, tc.code, tc.want)
			}
		})
	}
}
