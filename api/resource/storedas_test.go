package resource

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestStoredAsKeys(t *testing.T) {
	own := &Resource{Group: "example.com", Version: "v2", Kind: "Widget", Plural: "widgets", Namespaced: true}
	if got := own.Key("ns", "w"); got != "/registry/example.com/widgets/ns/w" {
		t.Errorf("own key %q", got)
	}
	if got, want := own.StorageGroupVersionKind(), own.GroupVersionKind(); got != want {
		t.Errorf("own storage version %v, want %v", got, want)
	}
	other := *own
	other.StoredAs = &StoredAs{Plural: "gadgets", Version: "v1", Kind: "Gadget"}
	if got := other.Key("ns", "w"); got != "/registry/core/gadgets/ns/w" {
		t.Errorf("stored-as key %q", got)
	}
	if got := other.Prefix(""); got != "/registry/core/gadgets/" {
		t.Errorf("stored-as prefix %q", got)
	}
	if got, want := other.StorageGroupVersionKind(), (schema.GroupVersionKind{Version: "v1", Kind: "Gadget"}); got != want {
		t.Errorf("stored-as storage version %v, want %v", got, want)
	}
}

func TestConvertTo(t *testing.T) {
	toSecret := ConvertTo(func(cm *corev1.ConfigMap) *corev1.Secret {
		return &corev1.Secret{StringData: cm.Data}
	})
	out, err := toSecret(&corev1.ConfigMap{Data: map[string]string{"k": "v"}})
	if s, ok := out.(*corev1.Secret); err != nil || !ok || s.StringData["k"] != "v" {
		t.Fatalf("converted %#v, %v", out, err)
	}
	var wrong runtime.Object = &corev1.Secret{}
	if _, err := toSecret(wrong); err == nil {
		t.Error("converted an object of the wrong type")
	}
}
