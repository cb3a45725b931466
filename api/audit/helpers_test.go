package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// testTimeout bounds every wait in these tests.
const testTimeout = 10 * time.Second

// writeFile writes body to a new file in a temporary directory.
func writeFile(t testing.TB, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// newTestAuditor returns an auditor with the policy logging to a file in
// a temporary directory, closed when the test ends, and the log's path.
func newTestAuditor(t testing.TB, policy string, tweak ...func(*Options)) (*Auditor, string) {
	t.Helper()
	opts := DefaultOptions()
	opts.PolicyFile = writeFile(t, "policy.yaml", policy)
	opts.LogPath = filepath.Join(t.TempDir(), "logs", "audit.log")
	for _, f := range tweak {
		f(&opts)
	}
	a, err := New(Config{Options: opts, Attributes: testAttributes})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return a, opts.LogPath
}

// policyAt is a policy recording everything at level.
func policyAt(level string) string {
	return "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: " + level + "\n"
}

// testAttributes understands the paths the tests use:
// /api/v1/[namespaces/NS/]RESOURCE[/NAME[/SUB]] and anything else as a
// non-resource path.
func testAttributes(r *http.Request, u user.Info) authorizer.Attributes {
	attrs := authorizer.AttributesRecord{User: u, Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[0] != "api" {
		return attrs
	}
	attrs.ResourceRequest, attrs.APIVersion, parts = true, parts[1], parts[2:]
	if parts[0] == "namespaces" && len(parts) > 2 {
		attrs.Namespace, parts = parts[1], parts[2:]
	}
	attrs.Resource = parts[0]
	if len(parts) > 1 {
		attrs.Name = parts[1]
	}
	if len(parts) > 2 {
		attrs.Subresource = parts[2]
	}
	attrs.Verb = testVerb(r, attrs.Name != "")
	return attrs
}

func testVerb(r *http.Request, named bool) string {
	switch r.Method {
	case http.MethodGet:
		switch {
		case r.URL.Query().Get("watch") == "true":
			return "watch"
		case named:
			return "get"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodDelete:
		if !named {
			return "deletecollection"
		}
	}
	return strings.ToLower(r.Method)
}

// Test credentials: the X-Test-User header names the user (with groups in
// X-Test-Groups); without it the request fails authentication. User
// "eve" is refused by authorization.
const (
	testUserHeader   = "X-Test-User"
	testGroupsHeader = "X-Test-Groups"
)

// withTestAuth is a serving chain's authentication, impersonation and
// authorization, reporting to the audit hooks as the cluster does.
func withTestAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.Header.Get(testUserHeader)
		if name == "" {
			writeStatus(w, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		u := &user.DefaultInfo{Name: name, UID: "uid-" + name, Groups: strings.Split(r.Header.Get(testGroupsHeader), ",")}
		ctx := r.Context()
		if err := Authenticated(ctx, u); err != nil {
			writeStatus(w, apierrors.NewInternalError(err))
			return
		}
		if as := r.Header.Get("Impersonate-User"); as != "" {
			LogImpersonatedUser(ctx, &user.DefaultInfo{Name: as, Groups: []string{"system:authenticated"}})
			name = as
		}
		if name == "eve" {
			LogAuthorizationDecision(ctx, authorizer.DecisionDeny, "no RBAC policy matched", nil)
			writeStatus(w, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "",
				errString(`User "eve" cannot list resource "configmaps" in API group "" in the namespace "ns"`)))
			return
		}
		LogAuthorizationDecision(ctx, authorizer.DecisionAllow, "allowed by test", nil)
		next.ServeHTTP(w, r)
	})
}

type errString string

func (e errString) Error() string { return string(e) }

// writeStatus writes err's Status in JSON.
func writeStatus(w http.ResponseWriter, err *apierrors.StatusError) {
	st := err.Status()
	st.Kind, st.APIVersion = "Status", "v1"
	body, _ := json.Marshal(&st)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(body)
}

// readEvents parses the JSON lines of the log at path.
func readEvents(t *testing.T, path string) []auditv1.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []auditv1.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev auditv1.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

// waitEvents polls the log until it holds n events and returns them.
func waitEvents(t *testing.T, path string, n int) []auditv1.Event {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		evs := readEvents(t, path)
		if len(evs) >= n {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("log has %d events, want %d: %+v", len(evs), n, evs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stages lists the events' stages.
func stages(evs []auditv1.Event) []auditv1.Stage {
	out := make([]auditv1.Stage, len(evs))
	for i, ev := range evs {
		out[i] = ev.Stage
	}
	return out
}

// mustRead returns the file's content.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
