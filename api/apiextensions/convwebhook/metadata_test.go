package convwebhook_test

import (
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestConvertKeepsLabelAndAnnotationChanges(t *testing.T) {
	h := newHook(t, edit(func(_, _ *apiextensionsv1.ConversionReview, objs []map[string]any) {
		objs[0]["metadata"].(map[string]any)["labels"] = map[string]any{"app": "a", "to": "v2"}
		objs[0]["metadata"].(map[string]any)["annotations"] = map[string]any{"from": "example.com/v1"}
		delete(objs[1]["metadata"].(map[string]any), "labels")
	}))
	c := mustNew(t, h.crd())
	in := []map[string]any{foo("a", 1), foo("b", 2)}
	out, err := c.Convert(in, "v2")
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	meta := out[0]["metadata"].(map[string]any)
	if want := map[string]any{"app": "a", "to": "v2"}; !reflect.DeepEqual(meta["labels"], want) {
		t.Errorf("labels = %v, want the webhook's %v", meta["labels"], want)
	}
	if want := map[string]any{"from": "example.com/v1"}; !reflect.DeepEqual(meta["annotations"], want) {
		t.Errorf("annotations = %v, want the webhook's %v", meta["annotations"], want)
	}
	if labels, ok := out[1]["metadata"].(map[string]any)["labels"]; ok {
		t.Errorf("labels the webhook removed are %v, want none", labels)
	}
	if want := map[string]any{"app": "a"}; !reflect.DeepEqual(in[0]["metadata"].(map[string]any)["labels"], want) {
		t.Errorf("the input's labels changed to %v", in[0]["metadata"].(map[string]any)["labels"])
	}
}

func TestConvertRestoresTheRestOfTheMetadata(t *testing.T) {
	h := newHook(t, edit(func(_, _ *apiextensionsv1.ConversionReview, objs []map[string]any) {
		m := objs[0]["metadata"].(map[string]any)
		m["generation"] = 42
		m["resourceVersion"] = "99"
		m["finalizers"] = []any{"foo"}
		m["garbage"] = "x"
		m["labels"].(map[string]any)["to"] = "v2"
		delete(m, "creationTimestamp")
	}))
	c := mustNew(t, h.crd())
	in := foo("a", 1)
	meta := in["metadata"].(map[string]any)
	meta["finalizers"] = []any{"example.com/keep"}
	meta["creationTimestamp"] = "2025-03-14T15:09:26Z"
	out, err := c.Convert([]map[string]any{in}, "v2")
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	want := map[string]any{
		"name": "a", "namespace": "ns", "uid": "uid-a", "resourceVersion": "7", "generation": int64(2),
		"finalizers": []any{"example.com/keep"}, "creationTimestamp": "2025-03-14T15:09:26Z",
		"labels": map[string]any{"app": "a", "to": "v2"},
	}
	if got := out[0]["metadata"]; !reflect.DeepEqual(got, want) {
		t.Errorf("metadata = %v\nwant the original's with the webhook's labels: %v", got, want)
	}
	// The restored metadata is a copy: changing it leaves the input alone.
	out[0]["metadata"].(map[string]any)["finalizers"].([]any)[0] = "changed"
	if got := meta["finalizers"].([]any)[0]; got != "example.com/keep" {
		t.Errorf("the input's finalizers share the output's: %v", got)
	}
}
