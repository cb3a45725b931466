package garbagecollector

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// wholeMetadata is decodeMetadata's definition: the object decoded whole.
func wholeMetadata(data []byte) (gcMeta, error) {
	var v struct {
		Metadata gcMeta `json:"metadata"`
	}
	err := json.Unmarshal(data, &v)
	return v.Metadata, err
}

func storedConfigMap(t testing.TB) []byte {
	t.Helper()
	yes := true
	now := metav1.Now()
	cm := corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", UID: "u-1", DeletionTimestamp: &now,
			Finalizers:      []string{metav1.FinalizerDeleteDependents},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: "s", UID: "u-0", BlockOwnerDeletion: &yes}},
			Labels:          map[string]string{"x": "y"}},
		Data: map[string]string{"v": strings.Repeat("x", 1024)}}
	data, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDecodeMetadata(t *testing.T) {
	cr := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "ns", "uid": "u-2", "finalizers": []any{"orphan"}},
		"spec":     map[string]any{"size": 3}}}
	crData, err := cr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"typed":                   storedConfigMap(t),
		"unstructured":            crData,
		"metadata last":           []byte(`{"spec":{"a":[1,{"b":"}"}]},"metadata":{"name":"n","uid":"u"}}`),
		"no metadata":             []byte(`{"kind":"X","spec":{}}`),
		"metadata null":           []byte(`{"metadata":null}`),
		"empty":                   []byte(`{}`),
		"escaped key before":      []byte(`{"k\"ey":"v","metadata":{"name":"n"}}`),
		"members after not read":  []byte(`{"metadata":{"name":"n"},"data":{"v":"w"}}`),
		"ownerReferences decoded": []byte(`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u","blockOwnerDeletion":true}]}}`),
	} {
		t.Run(name, func(t *testing.T) {
			want, err := wholeMetadata(data)
			if err != nil {
				t.Fatal(err)
			}
			var got gcMeta
			if err := decodeMetadata(data, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decodeMetadata = %+v, want %+v", got, want)
			}
		})
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{"metadata":`, `{"a":}`, `{"metadata":{"name":1}}`, `{"a"`} {
		var m gcMeta
		if err := decodeMetadata([]byte(bad), &m); err == nil {
			t.Errorf("decodeMetadata(%q) succeeded", bad)
		}
	}
}

func BenchmarkDecodeMetadata(b *testing.B) {
	data := storedConfigMap(b)
	b.Run("metadata", func(b *testing.B) {
		for b.Loop() {
			var m gcMeta
			if err := decodeMetadata(data, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			if _, err := wholeMetadata(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
