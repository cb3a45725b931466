package audit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

const testConfigMap = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"ns","uid":"u1","resourceVersion":"7",` +
	`"managedFields":[{"manager":"kubectl","operation":"Apply"}]},"data":{"k":"v"}}`

// testAPI answers like the API would: objects for reads, the created
// object (201) for a create, a success Status for a delete.
var testAPI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/healthz":
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "ok")
	case r.Method == http.MethodPost, r.Method == http.MethodPut:
		body, _ := io.ReadAll(r.Body)
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = w.Write(body)
	case r.Method == http.MethodDelete:
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"c","kind":"configmaps"}}`)
	default:
		_, _ = io.WriteString(w, testConfigMap)
	}
})

// request is one test request.
type request struct {
	method, target, body string
	header               map[string]string
}

// serve sends req through h as user alice (unless req's headers say
// otherwise) and returns the response.
func serve(h http.Handler, req request) *httptest.ResponseRecorder {
	r := httptest.NewRequest(req.method, req.target, strings.NewReader(req.body))
	r.RemoteAddr = "192.0.2.10:4321"
	r.Header.Set("User-Agent", "kubectl/v1.37.0")
	r.Header.Set(testUserHeader, "alice")
	r.Header.Set(testGroupsHeader, "dev,system:authenticated")
	if req.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range req.header {
		if v == "" {
			r.Header.Del(k)
			continue
		}
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

var alice = authnv1.UserInfo{Username: "alice", UID: "uid-alice", Groups: []string{"dev", "system:authenticated"}}

func TestGetAtMetadata(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("Metadata"))
	h := a.Handler(withTestAuth(testAPI))
	w := serve(h, request{method: "GET", target: "/api/v1/namespaces/ns/configmaps/c?resourceVersion=0",
		header: map[string]string{"X-Forwarded-For": "203.0.113.5"}})
	if w.Code != http.StatusOK {
		t.Fatalf("GET: %d %s", w.Code, w.Body)
	}
	evs := readEvents(t, path)
	if got, want := stages(evs), []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}; !cmp.Equal(got, want) {
		t.Fatalf("stages %v, want %v", got, want)
	}
	id := w.Header().Get("Audit-Id")
	if id == "" {
		t.Fatal("no Audit-Id response header")
	}
	want := auditv1.Event{
		TypeMeta:       metav1.TypeMeta{Kind: "Event", APIVersion: "audit.k8s.io/v1"},
		Level:          auditv1.LevelMetadata,
		AuditID:        k8stypes.UID(id),
		Stage:          auditv1.StageResponseComplete,
		RequestURI:     "/api/v1/namespaces/ns/configmaps/c?resourceVersion=0",
		Verb:           "get",
		User:           alice,
		SourceIPs:      []string{"203.0.113.5", "192.0.2.10"},
		UserAgent:      "kubectl/v1.37.0",
		ObjectRef:      &auditv1.ObjectReference{Resource: "configmaps", Namespace: "ns", Name: "c", APIVersion: "v1"},
		ResponseStatus: &metav1.Status{Code: 200},
		Annotations: map[string]string{
			"authorization.k8s.io/decision": "allow",
			"authorization.k8s.io/reason":   "allowed by test",
		},
	}
	got := evs[1]
	got.RequestReceivedTimestamp, got.StageTimestamp = metav1.MicroTime{}, metav1.MicroTime{}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResponseComplete event (-want +got):\n%s", diff)
	}
	if evs[0].RequestReceivedTimestamp != evs[0].StageTimestamp || evs[0].ResponseStatus != nil || evs[0].Annotations != nil {
		t.Errorf("RequestReceived event: %+v", evs[0])
	}
	raw, _ := os.ReadFile(path)
	if !regexp.MustCompile(`"stageTimestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"`).Match(raw) {
		t.Errorf("timestamps are not in microseconds: %s", raw)
	}
	if !strings.Contains(string(raw), `"responseStatus":{"metadata":{},"code":200}`) {
		t.Errorf("responseStatus not as kube writes it: %s", raw)
	}
}

func TestCreateLevels(t *testing.T) {
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new"},
	  "data":{"k":"v"}}`
	compact := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new"},"data":{"k":"v"}}`
	for _, tc := range []struct {
		level            string
		request, reponse bool
	}{
		{"Metadata", false, false},
		{"Request", true, false},
		{"RequestResponse", true, true},
	} {
		t.Run(tc.level, func(t *testing.T) {
			a, path := newTestAuditor(t, policyAt(tc.level))
			w := serve(a.Handler(withTestAuth(testAPI)), request{method: "POST", target: "/api/v1/namespaces/ns/configmaps", body: body})
			if w.Code != http.StatusCreated || w.Body.String() != body {
				t.Fatalf("POST: %d %s", w.Code, w.Body)
			}
			evs := readEvents(t, path)
			if len(evs) != 2 {
				t.Fatalf("%d events", len(evs))
			}
			ev := evs[1]
			if ev.Verb != "create" || ev.ObjectRef.Name != "new" || ev.ResponseStatus.Code != 201 {
				t.Errorf("event: verb %q objectRef %+v status %+v", ev.Verb, ev.ObjectRef, ev.ResponseStatus)
			}
			if evs[0].ObjectRef.Name != "" || evs[0].RequestObject != nil {
				t.Errorf("RequestReceived knows the body already: %+v", evs[0])
			}
			checkObject(t, "requestObject", ev.RequestObject, tc.request, compact)
			checkObject(t, "responseObject", ev.ResponseObject, tc.reponse, compact)
		})
	}
}

// checkObject checks a recorded object: js when want, else none.
func checkObject(t *testing.T, what string, got *runtime.Unknown, want bool, js string) {
	t.Helper()
	switch {
	case want && (got == nil || string(got.Raw) != js):
		t.Errorf("%s = %v, want %s", what, got, js)
	case !want && got != nil:
		t.Errorf("%s = %s, want none", what, got.Raw)
	}
}
