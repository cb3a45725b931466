package declarative

import (
	"encoding/json"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// roundTripper checks the round trips of one CRD's conversion.
type roundTripper struct {
	f        fixture
	conv     *Converter
	versions []string
	hub      string
	schemas  map[string]*structuralschema.Structural
	valid    map[string]apiservervalidation.SchemaValidator
}

// newRoundTripper compiles f for round trips.
func newRoundTripper(t testing.TB, name string) *roundTripper {
	t.Helper()
	f := mustFixture(t, name)
	rt := &roundTripper{f: f, conv: mustConverter(t, f), valid: map[string]apiservervalidation.SchemaValidator{}}
	var err error
	if rt.schemas, err = versionSchemas(f.crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range f.crd.Spec.Versions {
		rt.versions = append(rt.versions, v.Name)
		if v.Storage {
			rt.hub = v.Name
		}
		if rt.valid[v.Name], _, err = apiservervalidation.NewSchemaValidator(mustInternalSchema(t, f, v.Name)); err != nil {
			t.Fatal(err)
		}
	}
	return rt
}

// generate returns a random object valid in version.
func (rt *roundTripper) generate(t testing.TB, e entropy, version string) map[string]any {
	t.Helper()
	gv := schema.GroupVersion{Group: rt.f.crd.Spec.Group, Version: version}
	obj := generator{e}.object(gv.String(), rt.f.crd.Spec.Names.Kind, rt.schemas[version])
	rt.mustBeValid(t, obj, version, "the generated object")
	return obj
}

// check converts obj, valid in version from, along every path and back,
// and fails unless each path gives obj back as it was and each object on
// the way is valid in its version.
func (rt *roundTripper) check(t testing.TB, obj map[string]any, from string) {
	t.Helper()
	want := mustJSON(t, obj)
	for _, to := range rt.versions {
		there := rt.convert(t, obj, to)
		rt.mustBeValid(t, there, to, "converted from "+from)
		if back := rt.convert(t, there, from); mustJSON(t, back) != want {
			t.Fatalf("%s -> %s -> %s:\n got  %s\n want %s\n via  %s", from, to, from, mustJSON(t, back), want, mustJSON(t, there))
		}
		// Through the storage version, as objects are written and read.
		stored := rt.convert(t, obj, rt.hub)
		served := rt.convert(t, stored, to)
		restored := rt.convert(t, served, rt.hub)
		if mustJSON(t, restored) != mustJSON(t, stored) {
			t.Fatalf("%s -> %s -> %s -> %s:\n got  %s\n want %s", from, rt.hub, to, rt.hub, mustJSON(t, restored), mustJSON(t, stored))
		}
		if back := rt.convert(t, restored, from); mustJSON(t, back) != want {
			t.Fatalf("%s -> %s -> %s -> %s -> %s:\n got  %s\n want %s", from, rt.hub, to, rt.hub, from, mustJSON(t, back), want)
		}
	}
}

// convert converts obj, checking the annotations the result carries:
// valid keys of the reserved prefix, each a JSON merge patch.
func (rt *roundTripper) convert(t testing.TB, obj map[string]any, to string) map[string]any {
	t.Helper()
	before := mustJSON(t, obj)
	out := mustConvert(t, rt.conv, obj, to)
	if mustJSON(t, obj) != before {
		t.Fatalf("converting to %s modified the input", to)
	}
	for k, v := range annotations(out) {
		if !strings.HasPrefix(k, AnnotationPrefix) {
			continue
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			t.Fatalf("annotation %s: %v", k, errs)
		}
		if k == annotationKey(to) {
			t.Fatalf("the object converted to %s carries %s", to, k)
		}
		var patch map[string]any
		if err := json.Unmarshal([]byte(v.(string)), &patch); err != nil || len(patch) == 0 {
			t.Fatalf("annotation %s is not a non-empty JSON object: %q", k, v)
		}
	}
	return out
}

// mustBeValid fails unless obj is valid in version: its schema's
// validations hold and it has no field the schema prunes.
func (rt *roundTripper) mustBeValid(t testing.TB, obj map[string]any, version, what string) {
	t.Helper()
	if errs := apiservervalidation.ValidateCustomResource(field.NewPath(""), obj, rt.valid[version]); len(errs) > 0 {
		t.Fatalf("%s is not valid in %s: %v\n%s", what, version, errs.ToAggregate(), mustJSON(t, obj))
	}
	pruned := runtime.DeepCopyJSON(obj)
	if unknown := structuralpruning.PruneWithOptions(pruned, rt.schemas[version], true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}); len(unknown) > 0 {
		t.Fatalf("%s has fields %s cannot hold: %v\n%s", what, version, unknown, mustJSON(t, obj))
	}
}

// TestRandomRoundTrips converts thousands of random objects, valid in
// each version, along every path: v1 -> v2 -> v1, v2 -> v1 -> v2,
// v1alpha1 -> v1 (through v1beta1) -> v1alpha1, and through the storage
// version; each gives the object back as it was.
func TestRandomRoundTrips(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 100
	}
	seed := uint64(20240611)
	t.Logf("seed %d", seed)
	for _, name := range []string{"widgets", "gizmos"} {
		t.Run(name, func(t *testing.T) {
			rt := newRoundTripper(t, name)
			e := newRandEntropy(seed)
			for _, v := range rt.versions {
				for range n {
					rt.check(t, rt.generate(t, e, v), v)
				}
			}
		})
	}
}

// FuzzDeclarativeRoundTrip generates an object from the fuzzer's bytes,
// valid in one version of a three-version or a two-version CRD, and
// converts it along every path and back.
func FuzzDeclarativeRoundTrip(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add([]byte{0, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{1, 1, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0, 9, 9, 9})
	f.Add([]byte("\x00\x01the quick brown fox jumps over the lazy dog, 0123456789"))
	rts := []*roundTripper{newRoundTripper(f, "widgets"), newRoundTripper(f, "gizmos")}
	f.Fuzz(func(t *testing.T, data []byte) {
		e := &bytesEntropy{b: data}
		rt := rts[e.intn(len(rts))]
		v := rt.versions[e.intn(len(rt.versions))]
		rt.check(t, rt.generate(t, e, v), v)
	})
}

// TestAnnotationIsAMergePatch checks the annotation against another
// implementation of RFC 7386: applied to the object converted back, it
// gives the original.
func TestAnnotationIsAMergePatch(t *testing.T) {
	rt := newRoundTripper(t, "widgets")
	e := newRandEntropy(7)
	checked := 0
	for range 300 {
		obj := rt.generate(t, e, "v1alpha1")
		out := rt.convert(t, obj, "v1beta1")
		patch, ok := annotations(out)[annotationKey("v1alpha1")].(string)
		if !ok {
			continue
		}
		src, _, _ := takeAnnotation(out, annotationKey("v1alpha1"))
		back, err := rt.conv.up[rt.conv.at["v1alpha1"]].back.apply(src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsonpatch.MergePatch([]byte(mustJSON(t, back)), []byte(patch))
		if err != nil {
			t.Fatal(err)
		}
		if mustJSON(t, mustObject(t, string(got))) != mustJSON(t, obj) {
			t.Fatalf("the patch %s applied to %s gives %s, not %s", patch, mustJSON(t, back), got, mustJSON(t, obj))
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no object needed an annotation")
	}
}
