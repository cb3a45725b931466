package registry

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/raftapi/raftapi/api/resource"
)

// renamingSchema serves v2, whose spec.replicas is v1's spec.size;
// objects named "broken" cannot be converted.
type renamingSchema struct{}

func (renamingSchema) Decoded(map[string]any) ([]string, error) { return nil, nil }
func (renamingSchema) Stored(obj map[string]any) error {
	if obj["metadata"].(map[string]any)["name"] == "broken" {
		return errors.New("conversion failed")
	}
	spec := obj["spec"].(map[string]any)
	spec["replicas"] = spec["size"]
	delete(spec, "size")
	return nil
}
func (s renamingSchema) StoredAll(objs []map[string]any) error {
	for _, o := range objs {
		if err := s.Stored(o); err != nil {
			return err
		}
	}
	return nil
}
func (renamingSchema) ToStorage(obj map[string]any) (map[string]any, error) { return obj, nil }
func (renamingSchema) ConvertTo(obj map[string]any, _ string) (map[string]any, error) {
	return obj, nil
}
func (renamingSchema) OpenAPI(bool) *spec.Schema { return nil }
func (renamingSchema) Fingerprint() string       { return "" }
func (renamingSchema) StorageVersion() string    { return "v1" }

// TestFieldSelectorInServedVersion: a field selector matches the object
// converted to the request's version; an object that cannot be converted
// is kept, so that answering fails with the conversion's error.
func TestFieldSelectorInServedVersion(t *testing.T) {
	res := &resource.Resource{Group: "example.com", Version: "v2", Kind: "Foo", Plural: "foos",
		Fields: map[string]string{"spec.replicas": "spec.replicas"}, Schema: renamingSchema{}}
	pred := predicate(res, ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.replicas", "3")})
	for _, c := range []struct {
		obj  string
		want bool
	}{
		{`{"metadata":{"name":"a"},"spec":{"size":3}}`, true},
		{`{"metadata":{"name":"b"},"spec":{"size":4}}`, false},
		{`{"metadata":{"name":"broken"},"spec":{"size":4}}`, true},
	} {
		if got := pred([]byte(c.obj)); got != c.want {
			t.Errorf("%s: matches = %v, want %v", c.obj, got, c.want)
		}
	}
}
