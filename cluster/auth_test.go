package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/pki"
)

// TestAuthorization checks who may reach what, and kube-apiserver's 401
// and 403 Status bodies.
func TestAuthorization(t *testing.T) {
	own, err := pki.Derive(testToken)
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.Derive("another cluster")
	if err != nil {
		t.Fatal(err)
	}
	n := &Node{api: &apiSecurity{tls: &tls.Config{}, clientCAs: own.CA.Pool()}, authz: testPolicy()}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := UserFrom(r.Context())
		w.Header().Set("X-User", u.Name)
	})
	h := n.withAuth(ok)
	anon := func(r *http.Request) {}
	certOf := func(ca *pki.CA, cn string, groups ...string) func(*http.Request) {
		l, err := ca.Issue(pki.LeafSpec{CommonName: cn, Organization: groups, Client: true})
		if err != nil {
			t.Fatal(err)
		}
		block, _ := pem.Decode(l.CertPEM)
		leaf, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return func(r *http.Request) { r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}} }
	}
	cert := func(cn string, groups ...string) func(*http.Request) { return certOf(own.CA, cn, groups...) }
	bearer := func(r *http.Request) { r.Header.Set("Authorization", "Bearer anything") }
	basic := func(r *http.Request) { r.Header.Set("Authorization", "Basic dXNlcjpwYXNz") }
	emptyBearer := func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") }
	cases := []struct {
		name, method, path string
		as                 func(*http.Request)
		code               int
		message            string
	}{
		{"anonymous livez", "GET", "/livez", anon, 200, ""},
		{"anonymous readyz check", "GET", "/readyz/raft-leader", anon, 403, `forbidden: User "system:anonymous" cannot get path "/readyz/raft-leader"`},
		{"basic auth is anonymous", "GET", "/version", basic, 200, ""},
		{"empty bearer is anonymous", "GET", "/raftapi/v1/status", emptyBearer, 403, `forbidden: User "system:anonymous" cannot get path "/raftapi/v1/status"`},
		{"anonymous version", "GET", "/version", anon, 200, ""},
		{"anonymous discovery", "GET", "/api", anon, 403, `forbidden: User "system:anonymous" cannot get path "/api"`},
		{"anonymous list", "GET", "/api/v1/namespaces/default/secrets", anon, 403,
			`secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "default"`},
		{"anonymous get named", "GET", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l", anon, 403,
			`leases.coordination.k8s.io "l" is forbidden: User "system:anonymous" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "ns"`},
		{"anonymous watch", "GET", "/api/v1/namespaces/default/configmaps?watch=true", anon, 403,
			`configmaps is forbidden: User "system:anonymous" cannot watch resource "configmaps" in API group "" in the namespace "default"`},
		{"anonymous named get with watch=true", "GET", "/api/v1/namespaces/default/configmaps/c?watch=true", anon, 403,
			`configmaps "c" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "default"`},
		{"anonymous cluster create", "POST", "/api/v1/namespaces", anon, 403,
			`namespaces is forbidden: User "system:anonymous" cannot create resource "namespaces" in API group "" at the cluster scope`},
		{"anonymous subresource", "PUT", "/api/v1/namespaces/ns/status", anon, 403,
			`namespaces "ns" is forbidden: User "system:anonymous" cannot update resource "namespaces/status" in API group "" in the namespace "ns"`},
		{"anonymous snapshot", "GET", "/raftapi/v1/snapshot", anon, 403, `forbidden: User "system:anonymous" cannot get path "/raftapi/v1/snapshot"`},
		{"anonymous leave", "POST", "/raftapi/v1/leave", anon, 403, `forbidden: User "system:anonymous" cannot post path "/raftapi/v1/leave"`},
		{"anonymous metrics", "GET", "/metrics", anon, 403, `forbidden: User "system:anonymous" cannot get path "/metrics"`},
		{"bearer token", "GET", "/api", bearer, 401, "Unauthorized"},
		{"bearer token on livez", "GET", "/livez", bearer, 401, "Unauthorized"},
		{"certificate of another CA", "GET", "/version", certOf(other.CA, "system:admin", "system:masters"), 401, "Unauthorized"},
		{"peer certificate", "GET", "/api", certOf(own.PeerCA, "n1", PeerOrganization), 401, "Unauthorized"},
		{"user lists", "GET", "/api/v1/namespaces/default/secrets", cert("alice", "dev"), 200, ""},
		{"user status", "GET", "/raftapi/v1/status", cert("alice", "dev"), 403, `forbidden: User "alice" cannot get path "/raftapi/v1/status"`},
		{"user members", "GET", "/apis/raftapi.io/v1/members", cert("alice", "dev"), 403,
			`members.raftapi.io is forbidden: User "alice" cannot list resource "members" in API group "raftapi.io" at the cluster scope`},
		{"user discovers raftapi.io", "GET", "/apis/raftapi.io/v1", cert("alice", "dev"), 200, ""},
		{"admin members", "GET", "/apis/raftapi.io/v1/members", cert("system:admin", "system:masters"), 200, ""},
		{"user metrics", "GET", "/metrics", cert("alice", "dev"), 403, `forbidden: User "alice" cannot get path "/metrics"`},
		{"monitoring metrics", "GET", "/metrics", cert("prom", "system:monitoring"), 200, ""},
		{"anonymous profile", "GET", "/debug/pprof/profile", anon, 403, `forbidden: User "system:anonymous" cannot get path "/debug/pprof/profile"`},
		{"user profile", "GET", "/debug/pprof/heap", cert("alice", "dev"), 403, `forbidden: User "alice" cannot get path "/debug/pprof/heap"`},
		{"monitoring profile", "GET", "/debug/pprof/", cert("prom", "system:monitoring"), 403, `forbidden: User "prom" cannot get path "/debug/pprof/"`},
		{"admin profile", "GET", "/debug/pprof/heap", cert("system:admin", "system:masters"), 200, ""},
		{"admin snapshot", "GET", "/raftapi/v1/snapshot", cert("system:admin", "system:masters"), 200, ""},
		{"admin leave", "POST", "/raftapi/v1/leave", cert("system:admin", "system:masters"), 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, c.path, nil)
			c.as(r)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.code {
				t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, w.Code, c.code, w.Body)
			}
			if c.code == 200 {
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil || st.Kind != "Status" {
				t.Fatalf("body is not a Status: %s", w.Body)
			}
			if st.Message != c.message || int(st.Code) != c.code {
				t.Errorf("message %q code %d, want %q", st.Message, st.Code, c.message)
			}
		})
	}
}

// TestInsecureHTTPIsPrivileged checks that plain HTTP serves everything,
// as kube-apiserver's old insecure port did, and that it is refused on a
// non-loopback address unless asked for twice.
func TestInsecureHTTPIsPrivileged(t *testing.T) {
	n := &Node{api: &apiSecurity{}, authz: testPolicy()}
	var user User
	h := n.withAuth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { user, _ = UserFrom(r.Context()) }))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/raftapi/v1/snapshot", nil))
	if w.Code != 200 || user.Name != insecureUser {
		t.Fatalf("plain HTTP snapshot: %d as %q", w.Code, user.Name)
	}
	for listen, wantErr := range map[string]bool{"127.0.0.1:1": false, "[::1]:1": false, "localhost:1": false, "0.0.0.0:1": true, "10.1.2.3:1": true} {
		err := checkInsecureListen(Config{Listen: listen, InsecureHTTP: true})
		if (err != nil) != wantErr {
			t.Errorf("--insecure-http on %s: %v", listen, err)
		}
		if err := checkInsecureListen(Config{Listen: listen, InsecureHTTP: true, InsecureHTTPAnyAddress: true}); err != nil {
			t.Errorf("--insecure-http-allow-any-address on %s: %v", listen, err)
		}
	}
}
