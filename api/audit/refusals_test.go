package audit

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

func TestForbidden(t *testing.T) {
	for _, level := range []string{"Metadata", "RequestResponse"} {
		t.Run(level, func(t *testing.T) {
			a, path := newTestAuditor(t, policyAt(level))
			w := serve(a.Handler(withTestAuth(testAPI)), request{method: "GET", target: "/api/v1/namespaces/ns/configmaps",
				header: map[string]string{testUserHeader: "eve", testGroupsHeader: "system:authenticated"}})
			if w.Code != http.StatusForbidden {
				t.Fatalf("GET: %d", w.Code)
			}
			evs := readEvents(t, path)
			if got := stages(evs); !cmp.Equal(got, []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}) {
				t.Fatalf("stages %v", got)
			}
			ev := evs[1]
			want := &metav1.Status{Status: "Failure", Reason: "Forbidden", Code: 403,
				Message: `configmaps is forbidden: User "eve" cannot list resource "configmaps" in API group "" in the namespace "ns"`,
				Details: &metav1.StatusDetails{Kind: "configmaps"}}
			if diff := cmp.Diff(want, ev.ResponseStatus); diff != "" {
				t.Errorf("responseStatus (-want +got):\n%s", diff)
			}
			if ev.User.Username != "eve" || ev.Verb != "list" {
				t.Errorf("user %q verb %q", ev.User.Username, ev.Verb)
			}
			wantAnn := map[string]string{"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": "no RBAC policy matched"}
			if !cmp.Equal(ev.Annotations, wantAnn) {
				t.Errorf("annotations %v, want %v", ev.Annotations, wantAnn)
			}
			if (ev.ResponseObject != nil) != (level == "RequestResponse") {
				t.Errorf("responseObject %v at level %s", ev.ResponseObject, level)
			}
		})
	}
}

func TestUnauthenticated(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("Metadata"))
	w := serve(a.Handler(withTestAuth(testAPI)), request{method: "GET", target: "/api/v1/namespaces/ns/configmaps",
		header: map[string]string{testUserHeader: "", "Authorization": "Bearer nope"}})
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("GET: %d", w.Code)
	}
	evs := readEvents(t, path)
	if len(evs) != 1 {
		t.Fatalf("%d events, want kube's single ResponseStarted: %+v", len(evs), evs)
	}
	ev := evs[0]
	if ev.Stage != auditv1.StageResponseStarted || !cmp.Equal(ev.User, authnv1.UserInfo{}) || ev.Verb != "list" {
		t.Errorf("event: stage %s user %+v verb %s", ev.Stage, ev.User, ev.Verb)
	}
	want := &metav1.Status{Status: "Failure", Message: "Unauthorized", Reason: "Unauthorized", Code: 401}
	if diff := cmp.Diff(want, ev.ResponseStatus); diff != "" {
		t.Errorf("responseStatus (-want +got):\n%s", diff)
	}
}

// TestUnauthenticatedPlainBody: a 401 whose body is no Status keeps
// kube's message naming the credentials tried.
func TestUnauthenticatedPlainBody(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("Metadata"))
	refuse := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusUnauthorized) })
	serve(a.Handler(refuse), request{method: "GET", target: "/api", header: map[string]string{"Authorization": "Bearer x"}})
	evs := readEvents(t, path)
	if len(evs) != 1 || evs[0].ResponseStatus.Message != "Authentication failed, attempted: bearer" || evs[0].ResponseStatus.Code != 401 {
		t.Fatalf("events %+v", evs)
	}
}

func TestImpersonation(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("Metadata"))
	serve(a.Handler(withTestAuth(testAPI)), request{method: "GET", target: "/api/v1/namespaces/ns/configmaps/c",
		header: map[string]string{"Impersonate-User": "bob"}})
	evs := readEvents(t, path)
	if len(evs) != 2 {
		t.Fatalf("%d events", len(evs))
	}
	if evs[0].ImpersonatedUser != nil {
		t.Errorf("RequestReceived already has the impersonated user: %+v", evs[0].ImpersonatedUser)
	}
	ev := evs[1]
	want := &authnv1.UserInfo{Username: "bob", Groups: []string{"system:authenticated"}}
	if !cmp.Equal(ev.User, alice) || !cmp.Equal(ev.ImpersonatedUser, want) {
		t.Errorf("user %+v impersonatedUser %+v", ev.User, ev.ImpersonatedUser)
	}
}

func TestPanic(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("Metadata"))
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want the handler's panic", p)
			}
		}()
		serve(a.Handler(withTestAuth(boom)), request{method: "GET", target: "/api/v1/namespaces/ns/configmaps/c"})
	}()
	evs := readEvents(t, path)
	if got := stages(evs); !cmp.Equal(got, []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StagePanic}) {
		t.Fatalf("stages %v", got)
	}
	want := &metav1.Status{Status: "Failure", Reason: "InternalError", Code: 500, Message: "APIServer panic'd: boom"}
	if diff := cmp.Diff(want, evs[1].ResponseStatus); diff != "" {
		t.Errorf("responseStatus (-want +got):\n%s", diff)
	}
}

func TestAuditID(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("Metadata"))
	w := serve(a.Handler(withTestAuth(testAPI)), request{method: "GET", target: "/healthz", header: map[string]string{"Audit-ID": "given-id"}})
	if got := w.Header().Get("Audit-Id"); got != "given-id" {
		t.Errorf("Audit-Id %q, want the request's", got)
	}
	for _, ev := range readEvents(t, path) {
		if ev.AuditID != "given-id" || ev.Verb != "get" || ev.ObjectRef != nil {
			t.Errorf("event %+v", ev)
		}
	}
	// Without auditing, requests still get an ID, a fresh one each,
	// which the handlers can read.
	var off *Auditor
	var seen []string
	h := off.Handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		id, _ := IDFrom(r.Context())
		seen = append(seen, id)
	}))
	id1 := serve(h, request{method: "GET", target: "/healthz"}).Header().Get("Audit-Id")
	id2 := serve(h, request{method: "GET", target: "/healthz"}).Header().Get("Audit-Id")
	if len(id1) != 36 || id1 == id2 || !cmp.Equal(seen, []string{id1, id2}) {
		t.Errorf("Audit-Id %q then %q, IDFrom %q; want two UUIDs", id1, id2, seen)
	}
}

func TestDeleteStatus(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("Metadata"))
	serve(a.Handler(withTestAuth(testAPI)), request{method: "DELETE", target: "/api/v1/namespaces/ns/configmaps/c"})
	evs := readEvents(t, path)
	want := &metav1.Status{Status: "Success", Code: 200, Details: &metav1.StatusDetails{Name: "c", Kind: "configmaps"}}
	if len(evs) != 2 || !cmp.Equal(evs[1].ResponseStatus, want) || evs[1].ResponseObject != nil {
		t.Fatalf("events %+v", evs)
	}
}

func TestLegacyFormat(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("Metadata"), func(o *Options) { o.LogFormat = FormatLegacy })
	w := serve(a.Handler(withTestAuth(testAPI)), request{method: "GET", target: "/api/v1/namespaces/ns/configmaps/c"})
	lines := strings.Split(strings.TrimSpace(string(mustRead(t, path))), "\n")
	if len(lines) != 2 {
		t.Fatalf("lines %q", lines)
	}
	id := w.Header().Get("Audit-Id")
	want := ` AUDIT: id="` + id + `" stage="ResponseComplete" ip="192.0.2.10" method="get" user="alice" groups="\"dev\",\"system:authenticated\"" ` +
		`as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.37.0" namespace="ns" uri="/api/v1/namespaces/ns/configmaps/c" response="200"`
	if !strings.HasSuffix(lines[1], want) {
		t.Errorf("line %q, want suffix %q", lines[1], want)
	}
	if !strings.Contains(lines[0], `stage="RequestReceived"`) || !strings.HasSuffix(lines[0], `response="<deferred>"`) {
		t.Errorf("line %q", lines[0])
	}
}
