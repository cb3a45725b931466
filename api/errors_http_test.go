package api_test

import (
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestValidationErrors checks that invalid objects are refused with 422
// Invalid and a cause naming the offending field.
func TestValidationErrors(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)

	immutable := configMap("frozen", nil, map[string]string{"k": "v"})
	immutable.Immutable = ptr(true)
	frozen := createCM(t, s, ns, immutable)
	secPath := "/api/v1/namespaces/" + ns + "/secrets"
	sec := corev1.Secret{TypeMeta: metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "typed"}, Type: corev1.SecretTypeOpaque}
	var stored corev1.Secret
	s.do(t, http.MethodPost, secPath, sec).wantCode(t, http.StatusCreated).decode(t, &stored)

	changedFrozen := frozen.DeepCopy()
	changedFrozen.Data["k"] = "changed"
	retyped := stored.DeepCopy()
	retyped.Type = "example.com/other"

	cases := []struct {
		name      string
		method    string
		path      string
		body      any
		field     string
		causeType metav1.CauseType
	}{
		{"BadName", http.MethodPost, cmPath(ns), configMap("Bad_Name", nil, nil), "metadata.name", metav1.CauseTypeFieldValueInvalid},
		{"BadGenerateName", http.MethodPost, cmPath(ns), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "Bad_"}}, "metadata.generateName", metav1.CauseTypeFieldValueInvalid},
		{"BadLabelKey", http.MethodPost, cmPath(ns), configMap("l", map[string]string{"bad key!": "v"}, nil), "metadata.labels", metav1.CauseTypeFieldValueInvalid},
		{"BadLabelValue", http.MethodPost, cmPath(ns), configMap("l", map[string]string{"k": "bad value!"}, nil), "metadata.labels", metav1.CauseTypeFieldValueInvalid},
		{"MissingName", http.MethodPost, cmPath(ns), configMap("", nil, nil), "metadata.name", metav1.CauseTypeFieldValueRequired},
		{"BadDataKey", http.MethodPost, cmPath(ns), configMap("d", nil, map[string]string{"bad key": "v"}), "data[bad key]", metav1.CauseTypeFieldValueInvalid},
		{"ConfigMapOver1MiB", http.MethodPost, cmPath(ns), configMap("big", nil, map[string]string{"k": strings.Repeat("x", 1<<20+1)}), "[]", metav1.CauseTypeTooLong},
		{"ImmutableConfigMapChange", http.MethodPut, cmPath(ns, "frozen"), changedFrozen, "data", metav1.CauseTypeForbidden},
		{"SecretTypeChange", http.MethodPut, secPath + "/typed", retyped, "type", metav1.CauseTypeFieldValueInvalid},
		{"BadNamespaceName", http.MethodPost, "/api/v1/namespaces", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "Not.A.Label"}}, "metadata.name", metav1.CauseTypeFieldValueInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := s.do(t, c.method, c.path, c.body).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
			wantCause(t, st, c.causeType, c.field)
		})
	}
	if got := getCM(t, s, ns, "frozen", ""); got.Data["k"] != "v" {
		t.Errorf("immutable configmap changed: %v", got.Data)
	}
}

// strictBody is a configmap with an unknown field and a duplicate field.
const strictBody = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME"},"bogus":1,"data":{"a":"1"},"data":{"b":"2"}}`

// bodyNamed returns strictBody for the given name.
func bodyNamed(name string) string { return strings.Replace(strictBody, "NAME", name, 1) }

// TestFieldValidation checks the fieldValidation directive on unknown and
// duplicate fields.
func TestFieldValidation(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)

	t.Run("Strict", func(t *testing.T) {
		st := s.do(t, http.MethodPost, cmPath(ns)+query("fieldValidation", "Strict"), bodyNamed("strict")).
			wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		for _, want := range []string{`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: `, `unknown field "bogus"`, `duplicate field "data"`} {
			if !strings.Contains(st.Message, want) {
				t.Errorf("message %q lacks %s", st.Message, want)
			}
		}
		s.do(t, http.MethodGet, cmPath(ns, "strict"), nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	})

	for _, fv := range []string{"Warn", ""} {
		t.Run("Warn"+fv, func(t *testing.T) {
			name := "warn" + strings.ToLower(fv)
			r := s.do(t, http.MethodPost, cmPath(ns)+query("fieldValidation", fv), bodyNamed(name)).wantCode(t, http.StatusCreated)
			warnings := strings.Join(r.Header.Values("Warning"), "\n")
			for _, want := range []string{`299 - "unknown field \"bogus\""`, `299 - "duplicate field \"data\""`} {
				if !strings.Contains(warnings, want) {
					t.Errorf("Warning headers %q lack %s", warnings, want)
				}
			}
		})
	}

	t.Run("Ignore", func(t *testing.T) {
		r := s.do(t, http.MethodPost, cmPath(ns)+query("fieldValidation", "Ignore"), bodyNamed("ignore")).wantCode(t, http.StatusCreated)
		if w := r.Header.Values("Warning"); len(w) != 0 {
			t.Errorf("Warning headers %q with fieldValidation=Ignore", w)
		}
	})

	t.Run("Unknown", func(t *testing.T) {
		for _, method := range []string{http.MethodPost, http.MethodPut} {
			path := cmPath(ns)
			if method == http.MethodPut {
				path = cmPath(ns, "ignore")
			}
			st := s.do(t, method, path+query("fieldValidation", "Loose"), bodyNamed("ignore")).
				wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
			wantCause(t, st, metav1.CauseTypeFieldValueNotSupported, "fieldValidation")
		}
	})

	t.Run("StrictOnUpdateAndPatch", func(t *testing.T) {
		s.do(t, http.MethodPut, cmPath(ns, "ignore")+query("fieldValidation", "Strict"), bodyNamed("ignore")).
			wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
		// kube-apiserver refuses the patched object, not the request body:
		// 422 on the field "patch".
		st := s.do(t, http.MethodPatch, cmPath(ns, "ignore")+query("fieldValidation", "Strict"), `{"bogus":1}`, contentType(mergePatch)).
			wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "patch")
		if !strings.Contains(st.Message, `strict decoding error: unknown field "bogus"`) {
			t.Errorf("strict patch message %q", st.Message)
		}
	})
}

// TestRequestErrors checks the Status answers to requests the server
// cannot serve.
func TestRequestErrors(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	createCM(t, s, ns, configMap("a", nil, nil))

	huge := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge"},"data":{"k":"` + strings.Repeat("x", 3<<20) + `"}}`
	cases := []struct {
		name   string
		method string
		path   string
		body   any
		hdrs   []header
		code   int
		reason metav1.StatusReason
	}{
		{"BodyOver3MiB", http.MethodPost, cmPath(ns), huge, nil, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge},
		{"UpdateBodyOver3MiB", http.MethodPut, cmPath(ns, "a"), huge, nil, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge},
		{"MalformedJSON", http.MethodPost, cmPath(ns), `{"metadata":`, nil, http.StatusBadRequest, metav1.StatusReasonBadRequest},
		{"EmptyBody", http.MethodPost, cmPath(ns), "", nil, http.StatusBadRequest, metav1.StatusReasonBadRequest},
		{"WrongKind", http.MethodPost, cmPath(ns), `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`, nil, http.StatusBadRequest, metav1.StatusReasonBadRequest},
		{"WrongAPIVersion", http.MethodPost, cmPath(ns), `{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"s"}}`, nil, http.StatusBadRequest, metav1.StatusReasonBadRequest},
		{"UnknownResource", http.MethodGet, "/api/v1/namespaces/" + ns + "/widgets", nil, nil, http.StatusNotFound, metav1.StatusReasonNotFound},
		{"UnknownGroup", http.MethodGet, "/apis/example.com/v1/things", nil, nil, http.StatusNotFound, metav1.StatusReasonNotFound},
		{"UnknownVersion", http.MethodGet, "/api/v2/namespaces", nil, nil, http.StatusNotFound, metav1.StatusReasonNotFound},
		{"PutOnCollection", http.MethodPut, cmPath(ns), configMap("a", nil, nil), nil, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
		{"PostOnItem", http.MethodPost, cmPath(ns, "a"), configMap("a", nil, nil), nil, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
		{"UnsupportedAccept", http.MethodGet, cmPath(ns, "a"), nil, []header{accept("text/html")}, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable},
		{"UnsupportedAcceptOnList", http.MethodGet, cmPath(ns), nil, []header{accept("application/xml")}, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable},
		{"UnsupportedTableVersion", http.MethodGet, cmPath(ns), nil, []header{accept("application/json;as=Table;v=v9;g=meta.k8s.io")}, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable},
		{"UnsupportedContentType", http.MethodPost, cmPath(ns), "<configmap/>", []header{contentType("application/xml")}, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType},
		{"BadDryRun", http.MethodPost, cmPath(ns) + query("dryRun", "Some"), configMap("d", nil, nil), nil, http.StatusBadRequest, metav1.StatusReasonBadRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.do(t, c.method, c.path, c.body, c.hdrs...)
			r.wantStatus(t, c.code, c.reason)
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Status served as %q, want application/json", ct)
			}
		})
	}
}
