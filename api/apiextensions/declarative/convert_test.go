package declarative

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
)

func TestRename(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1alpha1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},
		"spec":{"size":3,"color":"red","mode":"idle"}}`)
	out := mustConvert(t, c, in, "v1beta1")
	assertJSON(t, out, `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},
		"spec":{"replicas":3,"color":"red","mode":"idle","tier":"standard"}}`)
	assertJSON(t, mustConvert(t, c, out, "v1alpha1"), mustJSON(t, in))
}

func TestMoveIntoNestedObject(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"color":"red","tier":"premium","mode":"fast"}}`)
	out := mustConvert(t, c, in, "v1")
	assertJSON(t, out, `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"style":{"color":"red"},"tier":"premium","fast":true}}`)
	assertJSON(t, mustConvert(t, c, out, "v1beta1"), mustJSON(t, in))
}

func TestConstant(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{}}`)
	out := mustConvert(t, c, in, "v1beta1")
	assertJSON(t, out, `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"tier":"standard"}}`)

	// The way back has no place for tier: the annotation keeps it, and
	// the object comes back as it was in v1beta1.
	premium := mustObject(t, `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"tier":"premium"}}`)
	alpha := mustConvert(t, c, premium, "v1alpha1")
	assertJSON(t, alpha, `{"apiVersion":"test.raftapi.io/v1alpha1","kind":"Widget","metadata":{"name":"w",
		"annotations":{"conversion.raftapi.io/v1beta1":"{\"spec\":{\"tier\":\"premium\"}}"}},"spec":{}}`)
	assertJSON(t, mustConvert(t, c, alpha, "v1beta1"), mustJSON(t, premium))
}

func TestComputed(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"replicas":2,"color":"blue","mode":"slow","tier":"standard"}}`)
	out := mustConvert(t, c, in, "v1")
	assertJSON(t, out, `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"replicas":2,"style":{"color":"blue"},"summary":"blue/2","fast":false,"tier":"standard"}}`)

	// The other way: v1beta1 spec.mode from v1 spec.fast.
	v1 := mustObject(t, `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"fast":true}}`)
	assertJSON(t, mustConvert(t, c, v1, "v1beta1"), `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"mode":"fast"}}`)

	// An expression reading a field the object lacks leaves its field
	// unset: no color, no summary.
	bare := mustObject(t, `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":1}}`)
	assertJSON(t, mustConvert(t, c, bare, "v1"), `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"replicas":1}}`)
}

func TestComputedKeepsWhatItCannotSayInTheAnnotation(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	// v1 spec.fast cannot say v1beta1 spec.mode "idle": converting back
	// computes "slow", and the annotation restores "idle".
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"mode":"idle"}}`)
	out := mustConvert(t, c, in, "v1")
	assertJSON(t, out, `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"w",
		"annotations":{"conversion.raftapi.io/v1beta1":"{\"spec\":{\"mode\":\"idle\"}}"}},"spec":{"fast":false}}`)
	assertJSON(t, mustConvert(t, c, out, "v1beta1"), mustJSON(t, in))
}

func TestDrop(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1alpha1","kind":"Widget","metadata":{"name":"w","annotations":{"team":"a"}},
		"spec":{"legacyNote":"keep me","color":"red"}}`)
	out := mustConvert(t, c, in, "v1beta1")
	assertJSON(t, out, `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w","annotations":{"team":"a",
		"conversion.raftapi.io/v1alpha1":"{\"spec\":{\"legacyNote\":\"keep me\"}}"}},"spec":{"color":"red","tier":"standard"}}`)
	assertJSON(t, mustConvert(t, c, out, "v1alpha1"), mustJSON(t, in))
}

func TestThreeVersionChain(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1alpha1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"size":5,"color":"green","mode":"fast","labels":{"a":"b"},"ports":[{"name":"http","port":80}]},"status":{"ready":true}}`)
	v1 := mustConvert(t, c, in, "v1")
	assertJSON(t, v1, `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"replicas":5,"style":{"color":"green"},"summary":"green/5","fast":true,"tier":"standard",
		"labels":{"a":"b"},"ports":[{"name":"http","port":80}]},"status":{"ready":true}}`)
	assertJSON(t, mustConvert(t, c, v1, "v1alpha1"), mustJSON(t, in))

	// Both annotations travel along: each step restores its own.
	noted := mustObject(t, `{"apiVersion":"test.raftapi.io/v1alpha1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"legacyNote":"old","mode":"idle"}}`)
	v1 = mustConvert(t, c, noted, "v1")
	a := annotations(v1)
	if len(a) != 2 || a["conversion.raftapi.io/v1alpha1"] == nil || a["conversion.raftapi.io/v1beta1"] == nil {
		t.Fatalf("annotations of the v1 object: %v", a)
	}
	assertJSON(t, mustConvert(t, c, mustConvert(t, c, v1, "v1beta1"), "v1alpha1"), mustJSON(t, noted))
}

func TestConvertBatchAndSameVersion(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	a := mustObject(t, `{"apiVersion":"test.raftapi.io/v1alpha1","kind":"Widget","metadata":{"name":"a"},"spec":{"size":1}}`)
	b := mustObject(t, `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"b"},"spec":{"replicas":2}}`)
	out, err := c.Convert([]map[string]any{a, b}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, out[0], `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"replicas":1,"tier":"standard"}}`)
	assertJSON(t, out[1], mustJSON(t, b))
	if reflect.ValueOf(out[1]).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() {
		t.Fatal("an object already in the version is returned as it is, not as a copy")
	}
}

func TestConvertDoesNotModifyItsInputs(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"w",
		"annotations":{"conversion.raftapi.io/v1beta1":"{\"spec\":{\"mode\":\"idle\"}}","x":"y"}},
		"spec":{"replicas":1,"style":{"color":"c"},"summary":"other","fast":false,"labels":{"k":"v"}}}`)
	before := runtime.DeepCopyJSON(in)
	out := mustConvert(t, c, in, "v1alpha1")
	if !reflect.DeepEqual(in, before) {
		t.Fatalf("the input changed:\n%s\n%s", mustJSON(t, before), mustJSON(t, in))
	}
	out["spec"].(map[string]any)["labels"].(map[string]any)["k"] = "changed"
	if !reflect.DeepEqual(in, before) {
		t.Fatal("the output shares a map with the input")
	}
}

func TestConvertErrors(t *testing.T) {
	f := mustFixture(t, "gizmos")
	c := mustConverter(t, f)
	for name, tc := range map[string]struct {
		obj, to, want string
	}{
		"an integer overflow in an expression": {
			obj:  `{"apiVersion":"test.raftapi.io/v1","kind":"Gizmo","metadata":{"name":"g"},"spec":{"count":9223372036854775807}}`,
			to:   "v2",
			want: `spec.steps[0] (v1 to v2): spec.steps[0].computed[0]: evaluating the expression for spec.doubled of v2: integer overflow`,
		},
		"an unknown version":        {obj: `{"apiVersion":"test.raftapi.io/v3","kind":"Gizmo"}`, to: "v2", want: "v3 is not a version of test.raftapi.io"},
		"another group":             {obj: `{"apiVersion":"other.io/v1","kind":"Gizmo"}`, to: "v2", want: `apiVersion "other.io/v1" is not of group test.raftapi.io`},
		"an unknown target version": {obj: `{"apiVersion":"test.raftapi.io/v1","kind":"Gizmo"}`, to: "v9", want: "v9 is not a version of test.raftapi.io"},
		"a broken annotation":       {obj: `{"apiVersion":"test.raftapi.io/v2","kind":"Gizmo","metadata":{"name":"g","annotations":{"conversion.raftapi.io/v1":"{"}}}`, to: "v1", want: "the annotation conversion.raftapi.io/v1 is not a JSON merge patch"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := c.Convert([]map[string]any{mustObject(t, tc.obj)}, tc.to)
			status, ok := err.(*apierrors.StatusError)
			if !ok || status.Status().Code != 500 || !apierrors.IsInternalError(err) {
				t.Fatalf("got %#v, want a 500 StatusError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %q, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestConcurrentConversions(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1alpha1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"size":5,"color":"green","mode":"idle","legacyNote":"n"}}`)
	want := mustJSON(t, mustConvert(t, c, in, "v1"))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := mustJSON(t, mustConvert(t, c, in, "v1")); got != want {
					t.Errorf("got %s, want %s", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestDeterministic(t *testing.T) {
	if !mustConverter(t, mustFixture(t, "widgets")).Deterministic() {
		t.Fatal("a declarative conversion depends on the object alone")
	}
}

func TestAnnotationKeysAreValid(t *testing.T) {
	for _, v := range []string{"v1", "v1beta1", "v2alpha3", strings.Repeat("v", 63)} {
		if errs := validation.IsQualifiedName(annotationKey(v)); len(errs) > 0 {
			t.Errorf("%s: %v", annotationKey(v), errs)
		}
	}
}

func TestSingleVersionNeedsNoSteps(t *testing.T) {
	f := mustFixture(t, "gizmos")
	f.crd.Spec.Versions = f.crd.Spec.Versions[:1]
	f.policy.Spec.Steps = nil
	c := mustConverter(t, f)
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1","kind":"Gizmo","metadata":{"name":"g"},"spec":{"count":1}}`)
	assertJSON(t, mustConvert(t, c, in, "v1"), mustJSON(t, in))
}

func TestObjectsBuiltInGo(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "gizmos"))
	in := map[string]any{"apiVersion": "test.raftapi.io/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "g"},
		"spec": map[string]any{"count": 2, "extra": "x", "opts": map[string]any{"a": 1}}}
	out := mustConvert(t, c, in, "v2")
	assertJSON(t, mustConvert(t, c, out, "v1"), mustJSON(t, in))
}

func TestStaleAnnotationIsNotCarried(t *testing.T) {
	c := mustConverter(t, mustFixture(t, "widgets"))
	// An object in v1beta1 cannot need restoring into v1beta1: a client
	// copied the annotation from another object.
	in := mustObject(t, `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w",
		"annotations":{"conversion.raftapi.io/v1beta1":"{\"spec\":{\"mode\":\"idle\"}}"}},"spec":{"mode":"fast"}}`)
	out := mustConvert(t, c, in, "v1")
	assertJSON(t, out, `{"apiVersion":"test.raftapi.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"fast":true}}`)
	assertJSON(t, mustConvert(t, c, out, "v1beta1"), `{"apiVersion":"test.raftapi.io/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{"mode":"fast"}}`)
}
