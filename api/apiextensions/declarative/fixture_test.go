package declarative

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// fixture is a CRD and its policy, from testdata/<name>.yaml.
type fixture struct {
	crd    *apiextensionsv1.CustomResourceDefinition
	policy *ConversionPolicy
}

// mustFixture reads testdata/<name>.yaml: the CRD, "---", the policy.
func mustFixture(t testing.TB, name string) fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := bytes.SplitN(b, []byte("\n---\n"), 2)
	f := fixture{crd: &apiextensionsv1.CustomResourceDefinition{}, policy: &ConversionPolicy{}}
	if err := yaml.UnmarshalStrict(docs[0], f.crd); err != nil {
		t.Fatalf("%s: the CRD: %v", name, err)
	}
	if err := yaml.UnmarshalStrict(docs[1], f.policy); err != nil {
		t.Fatalf("%s: the policy: %v", name, err)
	}
	return f
}

// mustConverter compiles f's policy.
func mustConverter(t testing.TB, f fixture) *Converter {
	t.Helper()
	c, err := New(f.crd, f.policy)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mustConvert converts one object.
func mustConvert(t testing.TB, c *Converter, obj map[string]any, to string) map[string]any {
	t.Helper()
	out, err := c.Convert([]map[string]any{obj}, to)
	if err != nil {
		t.Fatalf("converting to %s: %v\n%s", to, err, mustJSON(t, obj))
	}
	return out[0]
}

// mustObject decodes a JSON object as the codec does (integers int64).
func mustObject(t testing.TB, s string) map[string]any {
	t.Helper()
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	return numbers(obj).(map[string]any)
}

// numbers replaces json.Numbers by int64 or float64.
func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// mustJSON encodes v, map keys sorted.
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertJSON fails unless got encodes as want does.
func assertJSON(t testing.TB, got any, want string) {
	t.Helper()
	if g, w := mustJSON(t, got), mustJSON(t, mustObject(t, want)); g != w {
		t.Fatalf("got  %s\nwant %s", g, w)
	}
}

// mustInternalSchema returns version's schema as the validator takes it.
func mustInternalSchema(t testing.TB, f fixture, version string) *apiextensionsinternal.JSONSchemaProps {
	t.Helper()
	for _, v := range f.crd.Spec.Versions {
		if v.Name != version {
			continue
		}
		internal := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
			t.Fatal(err)
		}
		return internal.OpenAPIV3Schema
	}
	t.Fatalf("no version %s", version)
	return nil
}
