package accessreview_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// eventually bounds every wait for a condition.
const eventually = 30 * time.Second

// users are the users of the test server, by bearer token.
var users = map[string]*user.DefaultInfo{
	"admin": {Name: "root", Groups: []string{"system:masters", "system:authenticated"}},
	"alice": {Name: "alice", UID: "u-alice", Groups: []string{"dev", "system:authenticated"}},
}

// newServer serves the API of a one-node cluster with the RBAC bootstrap
// policy, authenticating the bearer tokens of users (the serving chain's
// job in a node), and returns its URL once the policy is installed and
// aggregated.
func newServer(t *testing.T) string {
	t.Helper()
	c := storetest.NewCluster(t, 1)
	logger := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	srv := api.NewServer(c.Leader(), api.Options{BootstrapRBAC: true, Logger: logger})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Run(ctx)
	}()
	// TLS: kubectl sends a bearer token over https only.
	hs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, ok := users[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]; ok {
			r = r.WithContext(request.WithUser(r.Context(), u))
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		cancel()
		hs.CloseClientConnections()
		hs.Close()
		<-done
	})
	client = hs.Client()
	waitFor(t, "the RBAC bootstrap policy", func() bool { return srv.RBACBootstrapReady() == nil })
	waitFor(t, "system:masters allowed through RBAC", func() bool {
		return selfReview(t, hs.URL, "admin", &authorizationv1.ResourceAttributes{Verb: "delete", Resource: "namespaces"}).Allowed
	})
	return hs.URL
}

// client trusts the test server's certificate.
var client *http.Client

// testWriter writes the server's log through t.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventually)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// post sends body as token's user and returns the status code and body.
func post(t *testing.T, url, token, path string, body any) (int, []byte) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// get reads path as the admin and returns the body.
func get(t *testing.T, url, path string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer admin")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v %s", path, resp.StatusCode, err, body)
	}
	return body
}

// selfReview asks whether token's user may do ra.
func selfReview(t *testing.T, url, token string, ra *authorizationv1.ResourceAttributes) authorizationv1.SubjectAccessReviewStatus {
	t.Helper()
	code, body := post(t, url, token, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", authorizationv1.SelfSubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SelfSubjectAccessReview"},
		Spec:     authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: ra},
	})
	var out authorizationv1.SelfSubjectAccessReview
	if err := json.Unmarshal(body, &out); code != http.StatusCreated || err != nil {
		t.Fatalf("selfsubjectaccessreview: %d %s", code, body)
	}
	return out.Status
}

// kubectl runs kubectl as token's user and returns its output and exit
// code.
func kubectl(t *testing.T, url, token string, args ...string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--server=" + url, "--insecure-skip-tls-verify", "--token=" + token, "--kubeconfig=" + kubeconfig, "--cache-dir=" + filepath.Join(dir, "cache")}, args...)
	cmd := exec.CommandContext(t.Context(), "kubectl", args...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+kubeconfig)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args[5:], " "), err)
	}
	t.Logf("kubectl %s (exit %d):\n%s", strings.Join(args[5:], " "), code, out)
	return string(out), code
}

// TestOverHTTP serves the reviews of a one-node cluster, answered by the
// RBAC authorizer over the bootstrap policy.
func TestOverHTTP(t *testing.T) {
	url := newServer(t)
	t.Run("reviews", func(t *testing.T) { testAccessReviews(t, url) })
	t.Run("discovery and OpenAPI", func(t *testing.T) { testReviewsInDiscoveryAndOpenAPI(t, url) })
	t.Run("kubectl", func(t *testing.T) { testKubectlAuth(t, url) })
}

// testAccessReviews: the reviews on the wire; alice gets the aggregated
// view role in default.
func testAccessReviews(t *testing.T, url string) {
	code, body := post(t, url, "admin", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"name": "alice-view"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}},
	})
	if code != http.StatusCreated {
		t.Fatalf("create rolebinding: %d %s", code, body)
	}
	listCM := &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "configmaps"}
	waitFor(t, "alice to list configmaps through view", func() bool { return selfReview(t, url, "alice", listCM).Allowed })
	if st := selfReview(t, url, "alice", &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "create", Resource: "configmaps"}); st.Allowed {
		t.Errorf("alice may create configmaps: %+v", st)
	}

	sar := func(ns string) map[string]any {
		return map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
			"spec": map[string]any{"user": "alice", "resourceAttributes": map[string]any{"namespace": ns, "verb": "get", "resource": "configmaps"}}}
	}
	code, body = post(t, url, "admin", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", sar("default"))
	if code != http.StatusCreated || !strings.Contains(string(body), `"allowed":true`) {
		t.Errorf("localsubjectaccessreview: %d %s", code, body)
	}
	code, body = post(t, url, "admin", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", sar("kube-system"))
	if code != http.StatusUnprocessableEntity || !strings.Contains(string(body), `spec.resourceAttributes.namespace: Invalid value: \"kube-system\": must match metadata.namespace`) {
		t.Errorf("localsubjectaccessreview in another namespace: %d %s", code, body)
	}
	code, body = post(t, url, "admin", "/apis/authorization.k8s.io/v1/subjectaccessreviews", map[string]any{
		"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
		"spec": map[string]any{"resourceAttributes": map[string]any{"verb": "get", "resource": "configmaps"}}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(string(body), "at least one of user or group must be specified") {
		t.Errorf("subjectaccessreview without a subject: %d %s", code, body)
	}
	code, body = post(t, url, "alice", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", map[string]any{
		"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview"})
	if code != http.StatusBadRequest || !strings.Contains(string(body), "no namespace on request") {
		t.Errorf("selfsubjectrulesreview without a namespace: %d %s", code, body)
	}
}

// testReviewsInDiscoveryAndOpenAPI: reviews are listed with their one
// verb and no storage version hash, and OpenAPI defines no list of them,
// as kube-apiserver.
func testReviewsInDiscoveryAndOpenAPI(t *testing.T, url string) {
	var list metav1.APIResourceList
	if err := json.Unmarshal(get(t, url, "/apis/authorization.k8s.io/v1"), &list); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range list.APIResources {
		if strings.HasSuffix(r.Name, "accessreviews") || r.Name == "selfsubjectrulesreviews" {
			seen++
			if !slices.Equal(r.Verbs, metav1.Verbs{"create"}) || r.StorageVersionHash != "" {
				t.Errorf("discovery of %s: %+v", r.Name, r)
			}
		}
	}
	if seen != 4 {
		t.Errorf("discovery lists %d of the 4 authorization reviews: %+v", seen, list.APIResources)
	}
	v2 := string(get(t, url, "/openapi/v2"))
	if !strings.Contains(v2, `"io.k8s.api.authorization.v1.SelfSubjectAccessReview"`) || strings.Contains(v2, "SelfSubjectAccessReviewList") ||
		!strings.Contains(v2, `"/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews"`) {
		t.Error("OpenAPI v2: want the review definitions and paths, and no review lists")
	}
}

// testKubectlAuth: kubectl auth whoami, can-i and can-i --list (alice
// viewing default), and the reviews in discovery and OpenAPI.
func testKubectlAuth(t *testing.T, url string) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	for _, tc := range []struct {
		token string
		args  []string
		code  int
		want  []string // regular expressions the output must match
	}{
		{"alice", []string{"auth", "whoami"}, 0, []string{`(?m)^Username\s+alice$`, `(?m)^UID\s+u-alice$`, `(?m)^Groups\s+\[dev system:authenticated\]$`}},
		{"admin", []string{"auth", "whoami", "-o", "json"}, 0, []string{`"kind": "SelfSubjectReview"`, `"username": "root"`}},
		{"alice", []string{"auth", "can-i", "create", "selfsubjectaccessreviews.authorization.k8s.io"}, 0, []string{`(?m)^yes$`}},
		{"alice", []string{"auth", "can-i", "list", "configmaps", "-n", "default"}, 0, []string{`(?m)^yes$`}},
		{"alice", []string{"auth", "can-i", "create", "configmaps", "-n", "default"}, 1, []string{`(?m)^no$`}},
		{"alice", []string{"auth", "can-i", "list", "configmaps", "-n", "kube-system"}, 1, []string{`(?m)^no$`}},
		{"admin", []string{"auth", "can-i", "delete", "secrets", "--all-namespaces"}, 0, []string{`(?m)^yes$`}},
		{"alice", []string{"auth", "can-i", "get", "/version"}, 0, []string{`(?m)^yes$`}},
		{"alice", []string{"auth", "can-i", "get", "/metrics"}, 1, []string{`(?m)^no$`}},
		{"alice", []string{"auth", "can-i", "--list", "-n", "default"}, 0, []string{
			`(?m)^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$`,
			`(?m)^selfsubjectreviews\.authentication\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$`,
			`(?m)^\s+\[/api/\*\]\s+\[\]\s+\[get\]$`,
			`(?m)^configmaps\s+\[\]\s+\[\]\s+\[get list watch\]$`,
		}},
		{"admin", []string{"api-resources", "--api-group=authorization.k8s.io", "-o", "wide"}, 0, []string{
			`(?m)^localsubjectaccessreviews\s+authorization.k8s.io/v1\s+true\s+LocalSubjectAccessReview\s+create\s*$`,
			`(?m)^selfsubjectrulesreviews\s+authorization.k8s.io/v1\s+false\s+SelfSubjectRulesReview\s+create\s*$`,
		}},
		{"admin", []string{"explain", "selfsubjectaccessreviews.spec"}, 0, []string{`(?m)^KIND:\s+SelfSubjectAccessReview$`, `resourceAttributes`}},
	} {
		out, code := kubectl(t, url, tc.token, tc.args...)
		if code != tc.code {
			t.Errorf("kubectl %s: exit %d, want %d", strings.Join(tc.args, " "), code, tc.code)
		}
		for _, re := range tc.want {
			if !regexp.MustCompile(re).MatchString(out) {
				t.Errorf("kubectl %s: output does not match %s", strings.Join(tc.args, " "), re)
			}
		}
	}
}
