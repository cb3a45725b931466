package apiextensions_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// fuzzCRDYAML is the fixed definition the fuzz target decodes bodies
// against: nested objects, a set and a list-map, nested arrays,
// int-or-string, an embedded resource, a preserve-unknown-fields subtree,
// defaults, enums, a pattern, a nullable field, printer columns, a scale
// subresource and CEL rules, one of them a transition rule on oldSelf.
const fuzzCRDYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.fuzz.raftapi.io, uid: 2f0a6a53-5d2b-4e4b-9e0e-000000000001}
spec:
  group: fuzz.raftapi.io
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Size, type: string, jsonPath: .spec.size}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Ports, type: string, jsonPath: '.spec.ports[*].name'}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            x-kubernetes-validations:
            - rule: self.minReplicas <= self.replicas
              message: replicas must be at least minReplicas
            - rule: "!has(self.mode) || self.mode != 'Locked' || self.tags.size() == 0"
              messageExpression: "'a locked gadget has no tags, found ' + (self.tags.size() > 1 ? 'several' : 'one')"
            - rule: self.size == oldSelf.size
              message: size is immutable
            - rule: "!has(self.port) || (type(self.port) == int ? int(self.port) > 0 : string(self.port).size() > 0)"
              message: port must be positive or a name
            properties:
              size: {type: string, enum: [small, medium, large]}
              mode: {type: string, enum: [Open, Locked], default: Open}
              replicas: {type: integer, format: int32, minimum: 0, default: 1}
              minReplicas: {type: integer, minimum: 0, maximum: 100, default: 0}
              ratio: {type: number, minimum: 0, exclusiveMaximum: true, maximum: 1}
              title: {type: string, pattern: '^[a-z][-a-z0-9]*$', maxLength: 63}
              note: {type: string, nullable: true, maxLength: 256}
              port: {x-kubernetes-int-or-string: true}
              tags:
                type: array
                maxItems: 16
                x-kubernetes-list-type: set
                default: []
                items: {type: string, maxLength: 32}
              ports:
                type: array
                maxItems: 16
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name, protocol]
                items:
                  type: object
                  required: [name]
                  x-kubernetes-validations:
                  - rule: "!has(self.port) || self.port != 22"
                    message: port 22 is reserved
                  properties:
                    name: {type: string, maxLength: 15}
                    protocol: {type: string, enum: [TCP, UDP], default: TCP}
                    port: {type: integer, minimum: 1, maximum: 65535}
              labels:
                type: object
                maxProperties: 8
                additionalProperties: {type: string, maxLength: 63}
              matrix:
                type: array
                maxItems: 8
                items: {type: array, maxItems: 8, items: {type: integer}}
              nested:
                type: object
                properties:
                  inner:
                    type: object
                    properties:
                      deep:
                        type: object
                        properties:
                          value: {type: string, default: x, maxLength: 10}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              replicas: {type: integer}
              phase: {type: string}
`

// fuzzValidBody is an object of fuzzCRDYAML that passes every check; it
// is the old object of the update checks.
const fuzzValidBody = `{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget",
"metadata":{"name":"g1","namespace":"default","labels":{"app":"fuzz"}},
"spec":{"size":"small","replicas":2,"minReplicas":1,"ratio":0.5,"title":"gadget-one","note":null,"port":"http",
"tags":["a","b"],"ports":[{"name":"http","port":80},{"name":"dns","protocol":"UDP","port":53}],
"labels":{"tier":"web"},"matrix":[[1,2],[3]],"nested":{"inner":{"deep":{}}},
"template":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"},"data":{"k":"v"}},
"extra":{"anything":[1,"two",{"three":3.5}],"null":null}},
"status":{"replicas":2,"phase":"Ready"}}`

// fuzzSeeds are the seed corpus: the valid object, wrong types, nulls,
// huge numbers, deep nesting, odd unicode, malformed metadata, duplicate
// fields, other kinds and what is not an object at all.
func fuzzSeeds() []string {
	wrap := func(spec string) string {
		return `{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget","metadata":{"name":"g"},"spec":` + spec + `}`
	}
	deep := func(open, closing string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(closing, n)
	}
	return []string{
		fuzzValidBody,
		wrap(`{"size":"small"}`),
		wrap(`{"size":"medium","mode":"Locked","tags":["x"]}`),
		// Wrong types.
		wrap(`"spec"`),
		wrap(`{"size":5,"replicas":"3","tags":{},"ports":"80","labels":[1],"matrix":[["a"]],"template":[],"extra":"x","port":true}`),
		wrap(`{"size":"small","ports":[{"name":1},{"name":"a","protocol":"SCTP"},"p"],"nested":{"inner":[]}}`),
		wrap(`{"size":"small","replicas":1.5,"minReplicas":-1,"ratio":1,"title":"Not A Name"}`),
		wrap(`{"size":"small","tags":["a","a"],"ports":[{"name":"a"},{"name":"a"}]}`),
		// Nulls.
		`{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget","metadata":null,"spec":null,"status":null}`,
		wrap(`{"size":null,"replicas":null,"tags":[null],"ports":[null,{"name":null}],"labels":{"a":null},"matrix":[null,[null]],"template":null,"extra":{"x":null},"port":null}`),
		`{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget","metadata":{"name":null,"labels":null,"annotations":{"a":null},"ownerReferences":[null],"managedFields":[null],"creationTimestamp":null},"spec":{"size":"small"}}`,
		// Huge numbers.
		wrap(`{"size":"small","replicas":1e400,"minReplicas":99999999999999999999999999,"ratio":-1e308}`),
		wrap(`{"size":"small","replicas":9223372036854775807,"minReplicas":-9223372036854775808,"port":9223372036854775808}`),
		wrap(`{"size":"small","replicas":2147483648,"matrix":[[1e300,-0.0,4.9e-324]],"ports":[{"name":"a","port":1e20}]}`),
		`{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget","metadata":{"name":"g","generation":1e30,"deletionGracePeriodSeconds":-1e300},"spec":{"size":"small"}}`,
		// Deep nesting, in the preserved subtree and where the schema ends.
		wrap(`{"size":"small","extra":{"a":` + deep("[", "]", 500) + `}}`),
		wrap(`{"size":"small","extra":` + deep(`{"a":`, "}", 500) + `}`),
		wrap(`{"size":"small","nested":` + deep(`{"inner":`, "}", 300) + `}`),
		wrap(`{"size":"small","template":{"apiVersion":"v1","kind":"X","metadata":{"name":"t"},"spec":` + deep(`{"a":`, "}", 300) + `}}`),
		wrap(deep("[", "]", 20000)),
		// Unicode: emoji, combining marks, NUL, lone surrogates, invalid UTF-8.
		wrap(`{"size":"small","title":"gädget","note":"😀\u0000\ud800\udfff\ud800","tags":["\u202e","e\u0301"],"labels":{"ключ":"значение"}}`),
		`{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget","metadata":{"name":"gädget-😀","labels":{"😀":"😀"}},"spec":{"size":"small"}}`,
		wrap("{\"size\":\"small\",\"note\":\"\xff\xfe\xc0\x80\",\"extra\":{\"\xed\xa0\x80\":1}}"),
		wrap(`{"size":"smal\u006c","mode":"L\u006fcked"}`),
		// Malformed metadata, top-level and embedded.
		`{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget","metadata":{"name":5,"labels":"x","finalizers":{},"ownerReferences":[{"uid":1}]},"spec":{"size":"small"}}`,
		`{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget","metadata":"g","spec":{"size":"small"}}`,
		wrap(`{"size":"small","template":{"apiVersion":5,"kind":[],"metadata":{"name":{"x":1},"labels":{"a":1}}}}`),
		wrap(`{"size":"small","template":{"metadata":{"name":"-Bad-","generateName":"x","namespace":"ns"}}}`),
		// Scale paths with the wrong type.
		`{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":"small","replicas":-3},"status":{"replicas":"two"}}`,
		// Duplicate and unknown fields.
		`{"apiVersion":"fuzz.raftapi.io/v1","kind":"Gadget","metadata":{"name":"g","name":"h"},"spec":{"size":"small","size":"large","bogus":1}}`,
		// Another kind, another version, no kind, not an object.
		`{"apiVersion":"fuzz.raftapi.io/v2","kind":"Gadget","metadata":{"name":"g"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"g"}}`,
		`{"metadata":{"name":"g"},"spec":{"size":"small"}}`,
		`[]`, `null`, `"x"`, `1`, `{`, `{"a":}`, ``, " \n\t",
	}
}

// fuzzFixture is what every fuzz input is checked against, built once.
type fuzzFixture struct {
	res    *resource.Resource
	codecs *codec.Codecs
	// old is fuzzValidBody decoded and prepared: a valid stored object.
	old *unstructured.Unstructured
}

var (
	fuzzOnce sync.Once
	fuzzFix  *fuzzFixture
	fuzzErr  error
)

// fuzzSetup returns the fixture, building it on first use.
func fuzzSetup(t testing.TB) *fuzzFixture {
	t.Helper()
	fuzzOnce.Do(func() { fuzzFix, fuzzErr = newFuzzFixture() })
	if fuzzErr != nil {
		t.Fatal(fuzzErr)
	}
	return fuzzFix
}

func newFuzzFixture() (*fuzzFixture, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(fuzzCRDYAML), crd); err != nil {
		return nil, fmt.Errorf("decoding the fuzz CRD: %w", err)
	}
	// The definition must be one the API accepts.
	crdStrategy := apiextensions.CRDResource().Strategy
	crdStrategy.PrepareForCreate(crd)
	if errs := crdStrategy.Validate(crd); len(errs) > 0 {
		return nil, fmt.Errorf("the fuzz CRD is invalid: %v", errs.ToAggregate())
	}
	crd.Status.AcceptedNames = crd.Spec.Names
	rs, err := apiextensions.Resources(crd, nil)
	if err != nil || len(rs) != 1 {
		return nil, fmt.Errorf("Resources(fuzz CRD) = %d resources, %v; want 1", len(rs), err)
	}
	f := &fuzzFixture{res: rs[0], codecs: codec.NewCodecs(resource.NewRegistry(rs[0]))}
	obj, _, err := f.codecs.Decode(f.res, codec.MediaJSON, []byte(fuzzValidBody), metav1.FieldValidationStrict)
	if err != nil {
		return nil, fmt.Errorf("decoding the valid body: %w", err)
	}
	f.old = obj.(*unstructured.Unstructured)
	f.res.GetStrategy().PrepareForCreate(f.old)
	f.old.Object["status"] = map[string]any{"replicas": int64(2), "phase": "Ready"}
	if errs := f.validateCreate(f.old.DeepCopy()); len(errs) > 0 {
		return nil, fmt.Errorf("the valid body is invalid: %v", errs.ToAggregate())
	}
	return f, nil
}

// validateCreate runs what the registry runs on a create in namespace
// default: the strategy's PrepareForCreate, metadata validation and
// Validate.
func (f *fuzzFixture) validateCreate(obj *unstructured.Unstructured) field.ErrorList {
	st := f.res.GetStrategy()
	obj.SetNamespace("default")
	st.PrepareForCreate(obj)
	errs := apivalidation.ValidateObjectMetaAccessor(obj, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, st.Validate(obj)...)
}

// validateUpdate runs what the registry runs on an update of f.old.
func (f *fuzzFixture) validateUpdate(obj *unstructured.Unstructured) field.ErrorList {
	st := f.res.GetStrategy()
	old := f.old.DeepCopy()
	obj.SetNamespace(old.GetNamespace())
	obj.SetResourceVersion(old.GetResourceVersion())
	st.PrepareForUpdate(obj, old)
	return st.ValidateUpdate(obj, old)
}

// FuzzCustomResourceBody feeds request bodies to the decoding, strategy
// and stored-form code of a custom resource with a rich schema. Whatever
// the body, nothing panics; decoding fails only with a 400 Status error
// (or a strict decoding error, under Strict);
// validation reports no internal error and gives the same errors in the
// same order every time; an accepted object survives the stored form
// unchanged.
func FuzzCustomResourceBody(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	fix := fuzzSetup(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, fv := range []string{metav1.FieldValidationStrict, metav1.FieldValidationWarn} {
			obj, _, err := fix.codecs.Decode(fix.res, codec.MediaJSON, body, fv)
			if err != nil {
				wantBadRequest(t, fv, err)
				continue
			}
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				t.Fatalf("Decode (%s) returned %T, want *unstructured.Unstructured", fv, obj)
			}
			fix.check(t, u)
		}
		fix.checkStoredRaw(t, body)
	})
}

// wantBadRequest fails t unless err is a 400 Status error or, with
// fieldValidation Strict, the strict decoding error the handlers turn
// into kube's 400 (codec.Decode's contract).
func wantBadRequest(t *testing.T, fv string, err error) {
	t.Helper()
	if fv == metav1.FieldValidationStrict && runtime.IsStrictDecodingError(err) {
		return
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("Decode (%s) error %T %q, want *apierrors.StatusError", fv, err, err)
	}
	if se.Status().Code != 400 {
		t.Fatalf("Decode (%s) error code %d (%q), want 400", fv, se.Status().Code, se.Error())
	}
}

// check validates u as a create and as an update, twice each, and puts an
// accepted object through the stored form.
func (f *fuzzFixture) check(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	create := deterministic(t, "create", func() field.ErrorList { return f.validateCreate(u.DeepCopy()) })
	deterministic(t, "update", func() field.ErrorList { return f.validateUpdate(u.DeepCopy()) })
	if len(create) > 0 {
		return
	}
	accepted := u.DeepCopy()
	f.res.GetStrategy().PrepareForCreate(accepted)
	accepted.SetGeneration(1)
	first, err := codec.EncodeStored(f.res, accepted)
	if err != nil {
		t.Fatalf("EncodeStored of an accepted object: %v", err)
	}
	back, err := codec.DecodeStored(f.res, first)
	if err != nil {
		t.Fatalf("DecodeStored of %s: %v", first, err)
	}
	second, err := codec.EncodeStored(f.res, back)
	if err != nil {
		t.Fatalf("EncodeStored of the stored object: %v", err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("an accepted object changes when read back:\nwritten %s\nread    %s", first, second)
	}
	f.res.TableCells(back.(*unstructured.Unstructured).Object, time.Now())
}

// checkStoredRaw gives Stored content that never went through Decoded,
// as an object stored under an older schema is: it must not panic.
func (f *fuzzFixture) checkStoredRaw(t *testing.T, body []byte) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(body); err != nil {
		return
	}
	_ = f.res.Schema.Stored(u.Object)
	f.res.TableCells(u.Object, time.Now())
}

// deterministic runs validate twice and fails t unless both runs give the
// same errors, none of them internal (a 500). The order may differ: the
// OpenAPI validator kube-apiserver uses (kube-openapi's) walks properties
// in map order, so kube's own Status causes come in a varying order.
func deterministic(t *testing.T, what string, validate func() field.ErrorList) field.ErrorList {
	t.Helper()
	first := validate()
	second := validate()
	a, b := sortedErrors(first), sortedErrors(second)
	if a != b {
		t.Fatalf("%s validation is not deterministic:\nfirst  %s\nsecond %s", what, a, b)
	}
	for _, e := range first {
		if e == nil || e.Type == field.ErrorTypeInternal {
			t.Fatalf("%s validation reports an internal error: %v", what, e)
		}
	}
	return first
}

// sortedErrors is errorStrings in sorted order.
func sortedErrors(errs field.ErrorList) string {
	lines := strings.Split(errorStrings(errs), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// errorStrings lists the errors one per line.
func errorStrings(errs field.ErrorList) string {
	var sb strings.Builder
	for _, e := range errs {
		sb.WriteString(e.Error())
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestFuzzFixtureValid pins the fixture: the valid body decodes strictly
// with its defaults applied, the seeds reach the checks they are meant
// for, and an update changing the immutable size is refused by the
// oldSelf rule.
func TestFuzzFixtureValid(t *testing.T) {
	fix := fuzzSetup(t)
	spec, _, _ := unstructured.NestedMap(fix.old.Object, "spec")
	if spec["mode"] != "Open" {
		t.Errorf("spec.mode = %v, want the default Open", spec["mode"])
	}
	if v, _, _ := unstructured.NestedString(fix.old.Object, "spec", "nested", "inner", "deep", "value"); v != "x" {
		t.Errorf("spec.nested.inner.deep.value = %q, want the default x", v)
	}
	changed := fix.old.DeepCopy()
	_ = unstructured.SetNestedField(changed.Object, "large", "spec", "size")
	if errs := errorStrings(fix.validateUpdate(changed)); !strings.Contains(errs, "size is immutable") {
		t.Errorf("update of spec.size: errors %q, want the oldSelf rule's message", errs)
	}
	locked := fix.old.DeepCopy()
	_ = unstructured.SetNestedField(locked.Object, "Locked", "spec", "mode")
	if errs := errorStrings(fix.validateCreate(locked)); !strings.Contains(errs, "a locked gadget has no tags, found several") {
		t.Errorf("locked with tags: errors %q, want the messageExpression", errs)
	}
}
