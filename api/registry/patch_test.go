package registry_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/registry"
)

// patch patches default/name and returns the stored result.
func patch(t *testing.T, s *registry.Store, name string, pt types.PatchType, body string, opts registry.WriteOptions) (registry.Result, error) {
	t.Helper()
	return s.Patch(testContext(t), metav1.NamespaceDefault, name, pt, []byte(body), opts)
}

func TestPatchTypes(t *testing.T) {
	// The object patched: data k1=v1, finalizer example.com/a.
	// metadata.finalizers has patchStrategy merge: a strategic merge patch
	// adds to the list, a JSON merge patch replaces it.
	tests := []struct {
		name           string
		pt             types.PatchType
		patch          string
		wantData       map[string]string
		wantFinalizers []string
	}{
		{"json patch", types.JSONPatchType,
			`[{"op":"add","path":"/data/k2","value":"v2"},{"op":"remove","path":"/data/k1"}]`,
			map[string]string{"k2": "v2"}, []string{"example.com/a"}},
		{"merge patch", types.MergePatchType,
			`{"data":{"k1":null,"k2":"v2"},"metadata":{"finalizers":["example.com/b"]}}`,
			map[string]string{"k2": "v2"}, []string{"example.com/b"}},
		{"strategic merge patch", types.StrategicMergePatchType,
			`{"data":{"k2":"v2"},"metadata":{"finalizers":["example.com/b"]}}`,
			map[string]string{"k1": "v1", "k2": "v2"}, []string{"example.com/a", "example.com/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFixture(t).configMaps(t)
			created := createConfigMap(t, s, withFinalizers(configMap("a", "k1", "v1"), "example.com/a"))
			r, err := patch(t, s, "a", tt.pt, tt.patch, registry.WriteOptions{Manager: "patcher"})
			if err != nil {
				t.Fatal(err)
			}
			got := decode[corev1.ConfigMap](t, r.Data)
			if !maps.Equal(got.Data, tt.wantData) || !sameStrings(got.Finalizers, tt.wantFinalizers) {
				t.Errorf("patched to data %v, finalizers %v; want %v, %v", got.Data, got.Finalizers, tt.wantData, tt.wantFinalizers)
			}
			if rv(t, got) <= rv(t, created) || got.UID != created.UID {
				t.Errorf("resourceVersion %s → %s, uid %s → %s", created.ResourceVersion, got.ResourceVersion, created.UID, got.UID)
			}
			if stored := getConfigMap(t, s, "a"); stored.ResourceVersion != got.ResourceVersion {
				t.Errorf("stored at %s, patch answered %s", stored.ResourceVersion, got.ResourceVersion)
			}
			wantManaged(t, got, "patcher", metav1.ManagedFieldsOperationUpdate, `"f:k2"`)
		})
	}
}

func sameStrings(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestPatchResourceVersionPrecondition(t *testing.T) {
	s := newFixture(t).configMaps(t)
	created := createConfigMap(t, s, configMap("a", "k", "v1"))
	body := func(rv, v string) string {
		return fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"data":{"k":%q}}`, rv, v)
	}
	r, err := patch(t, s, "a", types.MergePatchType, body(created.ResourceVersion, "v2"), registry.WriteOptions{})
	if err != nil {
		t.Fatalf("patch at the current resourceVersion: %v", err)
	}
	current := decode[corev1.ConfigMap](t, r.Data)

	_, err = patch(t, s, "a", types.MergePatchType, body(created.ResourceVersion, "v3"), registry.WriteOptions{})
	wantStatus(t, err, 409, metav1.StatusReasonConflict)
	if got := getConfigMap(t, s, "a"); got.Data["k"] != "v2" || got.ResourceVersion != current.ResourceVersion {
		t.Errorf("stored %v at %s after a stale patch, want v2 at %s", got.Data, got.ResourceVersion, current.ResourceVersion)
	}
}

func TestPatchErrors(t *testing.T) {
	tests := []struct {
		name   string
		target string
		pt     types.PatchType
		patch  string
		code   int32
		reason metav1.StatusReason
	}{
		{"json patch removing a missing key", "a", types.JSONPatchType,
			`[{"op":"remove","path":"/data/missing"}]`, 422, metav1.StatusReasonInvalid},
		{"json patch under a missing path", "a", types.JSONPatchType,
			`[{"op":"add","path":"/spec/x","value":"x"}]`, 422, metav1.StatusReasonInvalid},
		{"json patch failing test", "a", types.JSONPatchType,
			`[{"op":"test","path":"/data/k","value":"other"}]`, 422, metav1.StatusReasonInvalid},
		{"not JSON", "a", types.MergePatchType, `{`, 400, metav1.StatusReasonBadRequest},
		{"renames the object", "a", types.MergePatchType, `{"metadata":{"name":"b"}}`, 400, metav1.StatusReasonBadRequest},
		{"invalid result", "a", types.MergePatchType, `{"data":{"bad key!":"v"}}`, 422, metav1.StatusReasonInvalid},
		{"missing object", "missing", types.MergePatchType, `{"data":{"k":"v"}}`, 404, metav1.StatusReasonNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.configMaps(t)
			createConfigMap(t, s, configMap("a", "k", "v"))
			before := f.storage.Revision()
			_, err := patch(t, s, tt.target, tt.pt, tt.patch, registry.WriteOptions{})
			wantStatus(t, err, tt.code, tt.reason)
			if f.storage.Revision() != before {
				t.Error("a refused patch wrote")
			}
		})
	}
}

func TestPatchFieldValidation(t *testing.T) {
	const body = `{"data":{"k":"v2"},"unknownField":"x"}`
	tests := []struct {
		validation  string
		wantErr     bool
		wantWarning bool
	}{
		{metav1.FieldValidationStrict, true, false},
		{metav1.FieldValidationWarn, false, true},
		{metav1.FieldValidationIgnore, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.validation, func(t *testing.T) {
			s := newFixture(t).configMaps(t)
			createConfigMap(t, s, configMap("a", "k", "v1"))
			r, err := patch(t, s, "a", types.MergePatchType, body, registry.WriteOptions{FieldValidation: tt.validation})
			if tt.wantErr {
				se := wantStatus(t, err, 422, metav1.StatusReasonInvalid)
				if !strings.Contains(se.ErrStatus.Message, `patch: Invalid value: `) || !strings.Contains(se.ErrStatus.Message, `strict decoding error: unknown field "unknownField"`) {
					t.Errorf("message %q, want it to name the unknown field", se.ErrStatus.Message)
				}
				if got := getConfigMap(t, s, "a"); got.Data["k"] != "v1" {
					t.Errorf("a refused patch changed data to %v", got.Data)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			warned := slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, `unknown field "unknownField"`) })
			if warned != tt.wantWarning || (!tt.wantWarning && len(r.Warnings) > 0) {
				t.Errorf("warnings %q, want a warning about unknownField: %v", r.Warnings, tt.wantWarning)
			}
			if got := decode[corev1.ConfigMap](t, r.Data); got.Data["k"] != "v2" {
				t.Errorf("data %v, want the known fields patched", got.Data)
			}
		})
	}
}
