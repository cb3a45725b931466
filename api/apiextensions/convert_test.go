package apiextensions

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// renamer converts between v1's spec.size and v2's spec.replicas and
// counts its calls, as a webhook would see them.
type renamer struct {
	calls atomic.Int32
	fail  error
}

func (r *renamer) Convert(objs []map[string]any, to string) ([]map[string]any, error) {
	r.calls.Add(1)
	if r.fail != nil {
		return nil, r.fail
	}
	from, into := "size", "replicas"
	if to == "v1" {
		from, into = into, from
	}
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		c := runtime.DeepCopyJSON(o)
		c["apiVersion"] = "example.com/" + to
		if spec, ok := c["spec"].(map[string]any); ok {
			if v, ok := spec[from]; ok {
				spec[into] = v
				delete(spec, from)
			}
		}
		out[i] = c
	}
	return out, nil
}

// renamedCRD has v1 (spec.size, storage) and v2 (spec.replicas).
func renamedCRD() *apiextensionsv1.CustomResourceDefinition {
	field := func(name string) *apiextensionsv1.CustomResourceValidation {
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
					name: {Type: "integer"}, "color": {Type: "string"},
				}},
			},
		}}
	}
	names := apiextensionsv1.CustomResourceDefinitionNames{Plural: "foos", Singular: "foo", Kind: "Foo", ListKind: "FooList"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "foos.example.com", UID: "u1"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Names: names, Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: field("size")},
				{Name: "v2", Served: true, Schema: field("replicas")},
			},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: names},
	}
}

// resourcesWith returns the v1 and v2 resources of renamedCRD converted
// by conv.
func resourcesWith(t *testing.T, conv Converter) (v1, v2 *resource.Resource) {
	t.Helper()
	crd := renamedCRD()
	var out []*resource.Resource
	for i := range crd.Spec.Versions {
		r, err := versionResource(crd, &crd.Spec.Versions[i], conv)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out[0], out[1]
}

func storedFoo(name string, size int) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"example.com/v1","kind":"Foo","metadata":{"name":%q,"namespace":"ns","resourceVersion":"7","generation":1},"spec":{"size":%d,"color":"red"}}`, name, size)
}

func TestConvertedReadAndWrite(t *testing.T) {
	conv := &renamer{}
	_, v2 := resourcesWith(t, conv)
	obj, err := codec.DecodeStored(v2, storedFoo("a", 3))
	if err != nil {
		t.Fatal(err)
	}
	u := obj.(*unstructured.Unstructured)
	if u.GetAPIVersion() != "example.com/v2" || u.Object["spec"].(map[string]any)["replicas"] != int64(3) {
		t.Fatalf("read through v2: %v", u.Object)
	}
	if _, found := u.Object["spec"].(map[string]any)["size"]; found {
		t.Fatalf("v1's field survives in v2: %v", u.Object)
	}
	data, err := codec.EncodeStored(v2, u)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := codec.ContentMap(data)
	want, _ := codec.ContentMap(storedFoo("a", 3))
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("written through v2, stored as\n%v\nwant\n%v", back, want)
	}
	if u.GetAPIVersion() != "example.com/v2" {
		t.Fatalf("EncodeStored changed the served object: %v", u.Object)
	}
}

func TestConvertedListIsOneCall(t *testing.T) {
	conv := &renamer{}
	v1, v2 := resourcesWith(t, conv)
	items := [][]byte{storedFoo("a", 1), storedFoo("b", 2), storedFoo("c", 3)}
	served, err := codec.ServedItems(v2, items)
	if err != nil {
		t.Fatal(err)
	}
	if n := conv.calls.Load(); n != 1 {
		t.Fatalf("a list of 3 made %d conversion calls, want 1", n)
	}
	for i, b := range served {
		m, _ := codec.ContentMap(b)
		if got := m["spec"].(map[string]any)["replicas"]; got != float64(i+1) {
			t.Fatalf("item %d: %s", i, b)
		}
	}
	if _, err := codec.ServedItems(v1, items); err != nil || conv.calls.Load() != 1 {
		t.Fatalf("a list in the stored version called the converter (calls %d, err %v)", conv.calls.Load(), err)
	}
}

func TestConversionErrorIsTheAnswer(t *testing.T) {
	conv := &renamer{fail: apierrors.NewInternalError(errors.New("conversion webhook for example.com/v2, Kind=Foo failed: down"))}
	_, v2 := resourcesWith(t, conv)
	_, err := codec.DecodeStored(v2, storedFoo("a", 1))
	if !apierrors.IsInternalError(err) {
		t.Fatalf("DecodeStored: %v, want the converter's 500", err)
	}
	if _, err := codec.ServedItems(v2, [][]byte{storedFoo("a", 1)}); !apierrors.IsInternalError(err) {
		t.Fatalf("ServedItems: %v, want the converter's 500", err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v2", "kind": "Foo", "metadata": map[string]any{"name": "a"}}}
	if _, err := codec.EncodeStored(v2, u); !apierrors.IsInternalError(err) {
		t.Fatalf("EncodeStored: %v, want the converter's 500", err)
	}
}

func TestNonDeterministicConversionIsNotCached(t *testing.T) {
	conv := &renamer{}
	_, v2 := resourcesWith(t, conv)
	for range 3 {
		if _, err := codec.ServedData(v2, storedFoo("a", 1)); err != nil {
			t.Fatal(err)
		}
	}
	if n := conv.calls.Load(); n != 3 {
		t.Fatalf("3 reads made %d conversion calls: a converter that is not deterministic must be asked every time", n)
	}
	_, none := resourcesWith(t, nil)
	first, _ := codec.ServedData(none, storedFoo("a", 1))
	second, _ := codec.ServedData(none, storedFoo("a", 1))
	if &first[0] != &second[0] {
		t.Fatal("None's served form is not remembered")
	}
}

// TestNoneRoundTrip: with None, an object valid in both versions reads
// back identical through any path of versions, only apiVersion changing.
func TestNoneRoundTrip(t *testing.T) {
	crd := renamedCRD()
	crd.Spec.Versions[1].Schema = crd.Spec.Versions[0].Schema
	var res []*resource.Resource
	for i := range crd.Spec.Versions {
		r, err := versionResource(crd, &crd.Spec.Versions[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		spec := map[string]any{}
		if rnd.IntN(2) == 0 {
			spec["size"] = int64(rnd.IntN(1000))
		}
		if rnd.IntN(2) == 0 {
			spec["color"] = fmt.Sprint(rnd.Uint64())
		}
		orig := map[string]any{"apiVersion": "example.com/v2", "kind": "Foo",
			"metadata": map[string]any{"name": fmt.Sprint("o", i), "namespace": "ns", "labels": map[string]any{"k": fmt.Sprint(rnd.IntN(9))}},
			"spec":     spec}
		from, to := res[1], res[0]
		if rnd.IntN(2) == 0 {
			from, to = to, from
			orig["apiVersion"] = "example.com/v1"
		}
		stored, err := codec.EncodeStored(from, &unstructured.Unstructured{Object: runtime.DeepCopyJSON(orig)})
		if err != nil {
			t.Fatal(err)
		}
		mid, err := codec.DecodeStored(to, stored)
		if err != nil {
			t.Fatal(err)
		}
		again, err := codec.EncodeStored(to, mid)
		if err != nil {
			t.Fatal(err)
		}
		back, err := codec.DecodeStored(from, again)
		if err != nil {
			t.Fatal(err)
		}
		got := back.(*unstructured.Unstructured).Object
		want := maps.Clone(orig)
		want["metadata"].(map[string]any)["generation"] = int64(1)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip %s → %s → %s:\ngot  %v\nwant %v", from.Version, to.Version, from.Version, got, want)
		}
	}
}

// TestUnusableConversionFailsEachConversion: a CRD whose conversion
// cannot be built is still served; each conversion answers 500.
func TestUnusableConversionFailsEachConversion(t *testing.T) {
	crd := renamedCRD()
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{CABundle: []byte("not PEM")}}}
	rs, err := Resources(crd, nil)
	if err != nil || len(rs) != 2 {
		t.Fatalf("Resources: %d, %v", len(rs), err)
	}
	if _, err := codec.DecodeStored(rs[0], storedFoo("a", 1)); err != nil {
		t.Fatalf("read in the stored version: %v", err)
	}
	if _, err := codec.DecodeStored(rs[1], storedFoo("a", 1)); !apierrors.IsInternalError(err) {
		t.Fatalf("read in another version: %v, want 500", err)
	}
}

// intChecker fails a conversion when an integer of the object reaches it
// as anything but int64, the form schemas and CEL expect.
type intChecker struct{ renamer }

func (c *intChecker) Convert(objs []map[string]any, to string) ([]map[string]any, error) {
	for _, o := range objs {
		if v, ok := o["spec"].(map[string]any)["size"]; ok {
			if _, isInt := v.(int64); !isInt {
				return nil, apierrors.NewInternalError(fmt.Errorf("spec.size is %T", v))
			}
		}
	}
	return c.renamer.Convert(objs, to)
}

// TestConverterSeesInt64: reads, lists and field selectors hand the
// converter integers as int64.
func TestConverterSeesInt64(t *testing.T) {
	_, v2 := resourcesWith(t, &intChecker{})
	if _, err := codec.DecodeStored(v2, storedFoo("a", 1)); err != nil {
		t.Fatalf("read: %v", err)
	}
	if _, err := codec.ServedItems(v2, [][]byte{storedFoo("a", 1), storedFoo("b", 2)}); err != nil {
		t.Fatalf("list: %v", err)
	}
}
