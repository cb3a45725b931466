package builtin

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestServiceAccountSecretReferences(t *testing.T) {
	refs := func() []corev1.ObjectReference {
		return []corev1.ObjectReference{{Name: "a", Namespace: "other", Kind: "Secret", UID: "u"}, {Name: "b"}}
	}
	want := []corev1.ObjectReference{{Name: "a"}, {Name: "b"}}
	s := mustResource(t, "serviceaccounts").GetStrategy()

	created := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa"}, Secrets: refs()}
	s.PrepareForCreate(created)
	updated := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa"}, Secrets: refs()}
	s.PrepareForUpdate(updated, &corev1.ServiceAccount{})
	for _, sa := range []*corev1.ServiceAccount{created, updated} {
		if !reflect.DeepEqual(sa.Secrets, want) {
			t.Errorf("secrets = %+v", sa.Secrets)
		}
	}
}

func TestServiceAccountValidate(t *testing.T) {
	tests := []struct {
		name string
		sa   *corev1.ServiceAccount
		want errs
	}{
		{"valid", &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa", Finalizers: []string{"example.com/x"}}}, nil},
		{"metadata finalizer", &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa", Finalizers: []string{"foo"}}}, errs{"FieldValueInvalid metadata.finalizers[0]"}},
	}
	s := mustResource(t, "serviceaccounts").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.Validate(tt.sa), tt.want)
			checkErrs(t, s.ValidateUpdate(tt.sa, &corev1.ServiceAccount{}), tt.want)
		})
	}
}

func TestServiceAccountColumns(t *testing.T) {
	r := mustResource(t, "serviceaccounts")
	if got := cell(t, r, "Secrets", &corev1.ServiceAccount{}); got != int64(0) {
		t.Errorf("Secrets = %#v", got)
	}
	sa := &corev1.ServiceAccount{Secrets: []corev1.ObjectReference{{Name: "a"}, {Name: "b"}}}
	if got := cell(t, r, "Secrets", sa); got != int64(2) {
		t.Errorf("Secrets = %#v", got)
	}
}
