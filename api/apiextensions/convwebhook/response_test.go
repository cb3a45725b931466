package convwebhook_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// checkStatus fails unless err is what kube-apiserver answers for a
// failed conversion: a 500 Status without a reason, whose message is want
// (a prefix of it when want ends in "...").
func checkStatus(t *testing.T, err error, want string) {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want an *apierrors.StatusError", err, err)
	}
	st := se.Status()
	if st.Code != http.StatusInternalServerError || st.Reason != metav1.StatusReasonUnknown || st.Status != metav1.StatusFailure {
		t.Errorf("status: code %d, reason %q, status %q; want 500, no reason, Failure", st.Code, st.Reason, st.Status)
	}
	if prefix, ok := strings.CutSuffix(want, "..."); ok {
		if !strings.HasPrefix(st.Message, prefix) {
			t.Errorf("message:\n  %s\nwant it to start with:\n  %s", st.Message, prefix)
		}
	} else if st.Message != want {
		t.Errorf("message:\n  %s\nwant:\n  %s", st.Message, want)
	}
}

// edit is a webhook answer that converts every object, then lets change
// alter the answer.
func edit(change func(req, a *apiextensionsv1.ConversionReview, objs []map[string]any)) answer {
	return func(t *testing.T, req *apiextensionsv1.ConversionReview) any {
		objs := make([]map[string]any, len(req.Request.Objects))
		for i, raw := range req.Request.Objects {
			objs[i] = decodeObject(t, raw.Raw)
			rename(objs[i], req.Request.DesiredAPIVersion)
		}
		a := success(req, nil)
		change(req, a, objs)
		if a.Response != nil && a.Response.ConvertedObjects == nil {
			for _, o := range objs {
				a.Response.ConvertedObjects = append(a.Response.ConvertedObjects, runtime.RawExtension{Raw: mustJSON(t, o)})
			}
		}
		return a
	}
}

// setMeta sets metadata field k of the object at index i to v.
func setMeta(i int, k string, v any) func(req, a *apiextensionsv1.ConversionReview, objs []map[string]any) {
	return func(_, _ *apiextensionsv1.ConversionReview, objs []map[string]any) {
		objs[i]["metadata"].(map[string]any)[k] = v
	}
}

func TestConvertRefusesABadAnswer(t *testing.T) {
	const one = "conversion webhook for example.com/v1, Kind=Foo "
	tests := []struct {
		name  string
		batch bool
		edit  func(req, a *apiextensionsv1.ConversionReview, objs []map[string]any)
		want  string
	}{
		{"wrong uid", false, func(_, a *apiextensionsv1.ConversionReview, _ []map[string]any) { a.Response.UID = "wrong" },
			one + `failed: expected response.uid="...`},
		{"no response", false, func(_, a *apiextensionsv1.ConversionReview, _ []map[string]any) { a.Response = nil },
			one + "failed: no response provided"},
		{"not a v1 ConversionReview", false, func(_, a *apiextensionsv1.ConversionReview, _ []map[string]any) { a.TypeMeta = metav1.TypeMeta{} },
			one + "failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind="},
		{"failure with a message", false, func(_, a *apiextensionsv1.ConversionReview, _ []map[string]any) {
			a.Response.Result = metav1.Status{Status: metav1.StatusFailure, Message: "custom webhook conversion error"}
		}, one + "failed: custom webhook conversion error"},
		{"failure without a message", false, func(_, a *apiextensionsv1.ConversionReview, _ []map[string]any) {
			a.Response.Result = metav1.Status{Status: metav1.StatusFailure}
		}, one + "failed: response.result.status was 'Failure', not 'Success'"},
		{"no result status", false, func(_, a *apiextensionsv1.ConversionReview, _ []map[string]any) { a.Response.Result = metav1.Status{} },
			one + "failed: response.result.status was '', not 'Success'"},
		{"too few objects", true, func(_, a *apiextensionsv1.ConversionReview, objs []map[string]any) {
			a.Response.ConvertedObjects = []runtime.RawExtension{{Raw: mustJSON(t, objs[0])}}
		}, one + "returned 1 objects, expected 2"},
		{"no object", false, func(_, a *apiextensionsv1.ConversionReview, _ []map[string]any) {
			a.Response.ConvertedObjects = []runtime.RawExtension{}
		}, one + "returned 0 objects, expected 1"},
		{"wrong apiVersion", false, func(_, _ *apiextensionsv1.ConversionReview, objs []map[string]any) {
			objs[0]["apiVersion"] = "example.com/v1"
		},
			one + "returned invalid object at index 0: invalid groupVersion (expected example.com/v2, received example.com/v1)"},
		{"wrong apiVersion in a list", true, func(_, _ *apiextensionsv1.ConversionReview, objs []map[string]any) {
			objs[1]["apiVersion"] = "other.com/v2"
		},
			one + "returned invalid converted object at index 1: invalid groupVersion (expected example.com/v2, received other.com/v2)"},
		{"wrong kind", false, func(_, _ *apiextensionsv1.ConversionReview, objs []map[string]any) { objs[0]["kind"] = "Bar" },
			one + "returned invalid object at index 0: invalid kind (expected Foo, received Bar)"},
		{"wrong kind in a list", true, func(_, _ *apiextensionsv1.ConversionReview, objs []map[string]any) { objs[1]["kind"] = "Bar" },
			one + "returned invalid converted object at index 1: invalid kind (expected Foo, received Bar)"},
		{"changed name", false, setMeta(0, "name", "other"),
			one + "returned invalid object: must have the same name: a != other"},
		{"changed name in a list", true, setMeta(1, "name", "other"),
			one + "returned invalid converted object at index 1: must have the same name: b != other"},
		{"changed namespace", false, setMeta(0, "namespace", "other"),
			one + "returned invalid object: must have the same namespace: ns != other"},
		{"changed uid", false, setMeta(0, "uid", "other"),
			one + "returned invalid object: must have the same UID: uid-a != other"},
		{"invalid label", false, setMeta(0, "labels", map[string]any{"bad key!": "x"}),
			one + `returned invalid metadata: metadata.labels: Invalid value: "bad key!": name part must consist of...`},
		{"invalid annotation in a list", true, setMeta(1, "annotations", map[string]any{"bad key!": "x"}),
			one + `returned invalid metadata in object at index 1: metadata.annotation: Invalid value: "bad key!": name part must consist of...`},
		{"label not a string", false, setMeta(0, "labels", map[string]any{"app": int64(1)}),
			one + "returned invalid metadata: metadata.labels[app] must be a string, but is int64 in converted object"},
		// Without metadata the object has no name: kube checks that first.
		{"metadata not an object", false, func(_, _ *apiextensionsv1.ConversionReview, objs []map[string]any) { objs[0]["metadata"] = "x" },
			one + "returned invalid object: must have the same name: a != "},
		{"no metadata", false, func(_, _ *apiextensionsv1.ConversionReview, objs []map[string]any) { delete(objs[0], "metadata") },
			one + "returned invalid object: must have the same name: a != "},
		{"not an object in a list", true, func(_, a *apiextensionsv1.ConversionReview, objs []map[string]any) {
			a.Response.ConvertedObjects = []runtime.RawExtension{{Raw: mustJSON(t, objs[0])}, {Raw: []byte(`{"apiVersion":"example.com/v2"}`)}}
		}, one + `returned invalid converted object at index 1: Object 'Kind' is missing in '{"apiVersion":"example.com/v2"}'`},
		{"not an object", false, func(_, a *apiextensionsv1.ConversionReview, _ []map[string]any) {
			a.Response.ConvertedObjects = []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"example.com/v2"}`)}}
		}, `Object 'Kind' is missing in '{"apiVersion":"example.com/v2"}'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHook(t, edit(tt.edit))
			c := mustNew(t, h.crd())
			objs := []map[string]any{foo("a", 1)}
			if tt.batch {
				objs = append(objs, foo("b", 2))
			}
			out, err := c.Convert(objs, "v2")
			if out != nil {
				t.Errorf("Convert returned %v with its error", out)
			}
			checkStatus(t, err, tt.want)
		})
	}
}

func TestConvertRefusesABadHTTPAnswer(t *testing.T) {
	const one = "conversion webhook for example.com/v1, Kind=Foo failed: "
	tests := []struct {
		name  string
		serve http.HandlerFunc
		want  string
	}{
		{"500 with a text body", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintln(w, "  boom  ")
		}, one + `an error on the server ("boom") has prevented the request from succeeding`},
		{"400 with a JSON body", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"x"}`)
		}, one + "the server rejected our request for an unknown reason"},
		{"403 with a Status", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"not you","reason":"Forbidden","code":403}`)
		}, one + "not you"},
		{"an empty 200", func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("Content-Type", "application/json") },
			one + "0-length response with status code: 200 and content type: application/json"},
		{"not JSON", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<html>") },
			one + "couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRawHook(t, tt.serve)
			_, err := mustNew(t, h.crd()).Convert([]map[string]any{foo("a", 1)}, "v2")
			checkStatus(t, err, tt.want)
		})
	}
}
