package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// secKubeStatus is the part of a metav1.Status these tests compare with
// kube-apiserver's.
type secKubeStatus struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Status     string `json:"status"`
	Message    string `json:"message"`
	Reason     string `json:"reason"`
	Code       int    `json:"code"`
}

// TestSecurityAdminEndpoints checks who may use the admin endpoints, the
// metrics and the health paths of a node, and that the statuses refusing
// the others read as kube-apiserver's.
func TestSecurityAdminEndpoints(t *testing.T) {
	n := secNewNode(t, "adm", false)
	n.start(t)
	secWaitReady(t, n)
	cfg := n.config(t)
	admin, anon := secHTTP(t, cfg), secAnonymous(t, cfg)
	base := "https://" + n.api
	authority := secAuthority(t, n.data)

	forbidden := []struct{ method, path, msg string }{
		{"GET", "/raftapi/v1/snapshot", `forbidden: User "system:anonymous" cannot get path "/raftapi/v1/snapshot"`},
		{"GET", "/raftapi/v1/status", `forbidden: User "system:anonymous" cannot get path "/raftapi/v1/status"`},
		{"POST", "/raftapi/v1/leave", `forbidden: User "system:anonymous" cannot post path "/raftapi/v1/leave"`},
		{"GET", "/metrics", `forbidden: User "system:anonymous" cannot get path "/metrics"`},
		{"GET", "/api/v1/namespaces", `namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope`},
		{"GET", "/api/v1/namespaces/default/secrets/s", `secrets "s" is forbidden: User "system:anonymous" cannot get resource "secrets" in API group "" in the namespace "default"`},
	}
	for _, c := range forbidden {
		t.Run("anonymous "+c.method+" "+c.path, func(t *testing.T) {
			secCheckStatus(t, secMustDo(t, anon, c.method, base+c.path), http.StatusForbidden, "Forbidden", c.msg)
		})
	}
	t.Run("anonymous leave leaves the node running", func(t *testing.T) {
		st, err := n.status(t)
		if err != nil {
			t.Fatal(err)
		}
		if !n.running() || st.State != "Leader" {
			t.Fatalf("after an anonymous leave the node runs %v as %s", n.running(), st.State)
		}
	})
	for _, path := range []string{"/raftapi/v1/status", "/api/v1/namespaces", "/version"} {
		t.Run("bearer token "+path, func(t *testing.T) {
			r := secMustDo(t, anon, http.MethodGet, base+path, "Authorization", "Bearer not-a-token")
			secCheckStatus(t, r, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		})
	}
	// kube-apiserver's token authenticator reads only "Bearer" credentials:
	// a request with another Authorization scheme (Basic, which kube no
	// longer supports) is anonymous, as is an empty bearer token.
	for _, h := range []string{"Basic dXNlcjpwYXNz", "Bearer "} {
		t.Run("authorization "+strings.Fields(h)[0]+" without a token is anonymous", func(t *testing.T) {
			if r := secMustDo(t, anon, http.MethodGet, base+"/version", "Authorization", h); r.code != http.StatusOK {
				t.Errorf("/version: HTTP %d %.300s, want 200 as anonymous", r.code, r.body)
			}
			secCheckStatus(t, secMustDo(t, anon, http.MethodGet, base+"/raftapi/v1/status", "Authorization", h), http.StatusForbidden, "Forbidden",
				`forbidden: User "system:anonymous" cannot get path "/raftapi/v1/status"`)
		})
	}
	for _, path := range []string{"/livez", "/readyz", "/healthz", "/version", "/readyz?verbose"} {
		t.Run("anonymous "+path, func(t *testing.T) {
			if r := secMustDo(t, anon, http.MethodGet, base+path); r.code != http.StatusOK {
				t.Fatalf("HTTP %d: %s", r.code, r.body)
			}
		})
	}
	// kube-apiserver's system:public-info-viewer opens exactly /livez,
	// /readyz, /healthz, /version and /version/ to everyone; the single
	// checks under them (/readyz/etcd) are for system:monitoring.
	for _, path := range []string{"/readyz/raft-leader", "/livez/ping", "/healthz/raft"} {
		t.Run("anonymous single check "+path, func(t *testing.T) {
			secCheckStatus(t, secMustDo(t, anon, http.MethodGet, base+path), http.StatusForbidden, "Forbidden",
				`forbidden: User "system:anonymous" cannot get path "`+path+`"`)
		})
		t.Run("admin single check "+path, func(t *testing.T) {
			if r := secMustDo(t, admin, http.MethodGet, base+path); r.code != http.StatusOK {
				t.Fatalf("HTTP %d: %s", r.code, r.body)
			}
		})
	}
	t.Run("admin metrics", func(t *testing.T) {
		r := secMustDo(t, admin, http.MethodGet, base+"/metrics")
		if r.code != http.StatusOK || !strings.Contains(string(r.body), "# TYPE") {
			t.Fatalf("HTTP %d: %.300s", r.code, r.body)
		}
	})
	t.Run("monitoring group reads metrics only", func(t *testing.T) {
		cert := secIssue(t, authority.CA, "prometheus", "system:monitoring")
		hc := secCertClient(secCAPool(t, cfg), &cert)
		if r := secMustDo(t, hc, http.MethodGet, base+"/metrics"); r.code != http.StatusOK {
			t.Errorf("/metrics: HTTP %d: %s", r.code, r.body)
		}
		secCheckStatus(t, secMustDo(t, hc, http.MethodGet, base+"/raftapi/v1/status"), http.StatusForbidden, "Forbidden",
			`forbidden: User "prometheus" cannot get path "/raftapi/v1/status"`)
	})
	t.Run("authenticated non-admin refused admin endpoints", func(t *testing.T) {
		cert := secIssue(t, authority.CA, "bob", "developers")
		hc := secCertClient(secCAPool(t, cfg), &cert)
		secCheckStatus(t, secMustDo(t, hc, http.MethodGet, base+"/raftapi/v1/snapshot"), http.StatusForbidden, "Forbidden",
			`forbidden: User "bob" cannot get path "/raftapi/v1/snapshot"`)
		secCheckStatus(t, secMustDo(t, hc, http.MethodPost, base+"/raftapi/v1/leave"), http.StatusForbidden, "Forbidden",
			`forbidden: User "bob" cannot post path "/raftapi/v1/leave"`)
	})
	t.Run("admin status", func(t *testing.T) {
		if r := secMustDo(t, admin, http.MethodGet, base+"/raftapi/v1/status"); r.code != http.StatusOK {
			t.Fatalf("HTTP %d: %s", r.code, r.body)
		}
	})
	t.Run("snapshot save with the admin kubeconfig", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "snap.db")
		out := run(t, binary, "snapshot", "save", file, "--kubeconfig", n.kubeconfig(t))
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if fi.Mode().Perm() != 0o600 || fi.Size() == 0 {
			t.Errorf("%s: mode %v, %d bytes; want 0600 and a snapshot", file, fi.Mode().Perm(), fi.Size())
		}
	})
	t.Run("snapshot save without credentials", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "snap.db")
		kc := filepath.Join(t.TempDir(), "anonymous.kubeconfig")
		secWriteKubeconfig(t, kc, base, secWriteCA(t, cfg), "", "")
		out, err := secRunErr("snapshot", "save", file, "--kubeconfig", kc)
		if err == nil {
			t.Fatalf("an anonymous snapshot save succeeded:\n%s", out)
		}
		if !strings.Contains(out, "403") && !strings.Contains(out, "forbidden") {
			t.Errorf("the refusal does not say it is forbidden: %s", out)
		}
		if _, err := os.Stat(file); err == nil {
			t.Errorf("an anonymous snapshot save left %s", file)
		}
	})
}

// secCheckStatus checks a response is kube-apiserver's Status for code,
// reason and message.
func secCheckStatus(t *testing.T, r secResponse, code int, reason, msg string) {
	t.Helper()
	if r.code != code {
		t.Errorf("HTTP %d %.300q, want HTTP %d %q", r.code, r.body, code, msg)
		return
	}
	var st secKubeStatus
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatalf("HTTP %d, not a Status: %v: %s", r.code, err, r.body)
	}
	want := secKubeStatus{Kind: "Status", APIVersion: "v1", Status: "Failure", Message: msg, Reason: reason, Code: code}
	if r.code != code || st != want {
		t.Errorf("HTTP %d %+v\nwant HTTP %d %+v", r.code, st, code, want)
	}
	if !strings.HasPrefix(r.ctype, "application/json") {
		t.Errorf("Content-Type %q, want application/json", r.ctype)
	}
}

// secWriteCA writes the CA a rest.Config verifies servers with to a file.
func secWriteCA(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	if len(cfg.CAData) == 0 {
		return cfg.CAFile
	}
	path := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(path, cfg.CAData, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
