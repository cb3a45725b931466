package builtin

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func configMap(data map[string]string, binary map[string][]byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"},
		Data:       data,
		BinaryData: binary,
	}
}

func TestConfigMapValidate(t *testing.T) {
	half := corev1.MaxSecretSize / 2
	tests := []struct {
		name string
		cm   *corev1.ConfigMap
		want errs
	}{
		{"empty", configMap(nil, nil), nil},
		{"valid keys", configMap(map[string]string{"a.b": "1", "_x-Y": "2"}, map[string][]byte{"bin.dat": {0}}), nil},
		{"bad data key", configMap(map[string]string{"bad key": "1"}, nil), errs{"FieldValueInvalid data[bad key]"}},
		{"dot-dot key", configMap(map[string]string{"..": "1"}, nil), errs{"FieldValueInvalid data[..]"}},
		{"bad binaryData key", configMap(nil, map[string][]byte{"a/b": nil}), errs{"FieldValueInvalid binaryData[a/b]"}},
		{"duplicate key", configMap(map[string]string{"k": "1"}, map[string][]byte{"k": {1}}), errs{"FieldValueInvalid data[k]"}},
		{"exactly 1 MiB", configMap(map[string]string{"a": strings.Repeat("x", half)}, map[string][]byte{"b": make([]byte, half)}), nil},
		{"over 1 MiB", configMap(map[string]string{"a": strings.Repeat("x", half)}, map[string][]byte{"b": make([]byte, half+1)}), errs{"FieldValueTooLong []"}},
		{"metadata finalizer", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Finalizers: []string{"foo"}}}, errs{"FieldValueInvalid metadata.finalizers[0]"}},
	}
	s := mustResource(t, "configmaps").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.Validate(tt.cm), tt.want)
			checkErrs(t, s.ValidateUpdate(tt.cm, configMap(nil, nil)), tt.want)
		})
	}
}

func TestConfigMapTooLongMessage(t *testing.T) {
	cm := configMap(map[string]string{"a": strings.Repeat("x", corev1.MaxSecretSize+1)}, nil)
	got := mustResource(t, "configmaps").GetStrategy().Validate(cm)
	if len(got) != 1 || got[0].Error() != "[]: Too long: may not be more than 1048576 bytes" {
		t.Errorf("errors = %v", got)
	}
}

func TestConfigMapImmutable(t *testing.T) {
	old := configMap(map[string]string{"a": "1"}, map[string][]byte{"b": {1}})
	old.Immutable = ptr(true)
	tests := []struct {
		name   string
		change func(*corev1.ConfigMap)
		want   errs
	}{
		{"unchanged", func(*corev1.ConfigMap) {}, nil},
		{"labels may change", func(cm *corev1.ConfigMap) { cm.Labels = map[string]string{"x": "y"} }, nil},
		{"data", func(cm *corev1.ConfigMap) { cm.Data["a"] = "2" }, errs{"FieldValueForbidden data"}},
		{"binaryData", func(cm *corev1.ConfigMap) { cm.BinaryData = nil }, errs{"FieldValueForbidden binaryData"}},
		{"immutable unset", func(cm *corev1.ConfigMap) { cm.Immutable = nil }, errs{"FieldValueForbidden immutable"}},
		{"immutable false", func(cm *corev1.ConfigMap) { cm.Immutable = ptr(false) }, errs{"FieldValueForbidden immutable"}},
		{"everything", func(cm *corev1.ConfigMap) {
			cm.Immutable, cm.Data, cm.BinaryData = nil, nil, nil
		}, errs{"FieldValueForbidden immutable", "FieldValueForbidden data", "FieldValueForbidden binaryData"}},
	}
	s := mustResource(t, "configmaps").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := old.DeepCopy()
			tt.change(cm)
			s.PrepareForUpdate(cm, old)
			checkErrs(t, s.ValidateUpdate(cm, old), tt.want)
		})
	}

	mutable := old.DeepCopy()
	mutable.Immutable = ptr(false)
	cm := configMap(map[string]string{"new": "v"}, nil)
	cm.Immutable = ptr(true)
	checkErrs(t, s.ValidateUpdate(cm, mutable), nil)
	if got := s.ValidateUpdate(configMap(nil, nil), old); got[0].Detail != "field is immutable when `immutable` is set" {
		t.Errorf("detail %q", got[0].Detail)
	}
}

func TestConfigMapColumns(t *testing.T) {
	r := mustResource(t, "configmaps")
	tests := []struct {
		name string
		cm   *corev1.ConfigMap
		want int64
	}{
		{"empty", configMap(nil, nil), 0},
		{"data and binaryData", configMap(map[string]string{"a": "", "b": "x"}, map[string][]byte{"c": {1}}), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cell(t, r, "Data", tt.cm); got != tt.want {
				t.Errorf("Data = %#v, want %d", got, tt.want)
			}
		})
	}
	if len(r.Fields) != 0 {
		t.Errorf("fields %v", r.Fields)
	}
}
