package builtin

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func namespace(name string, finalizers ...corev1.FinalizerName) *corev1.Namespace {
	return &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.NamespaceSpec{Finalizers: finalizers},
	}
}

func TestNamespacePrepareForCreate(t *testing.T) {
	tests := []struct {
		name       string
		in         *corev1.Namespace
		finalizers []corev1.FinalizerName
		label      string
	}{
		{"none", namespace("a"), []corev1.FinalizerName{"kubernetes"}, "a"},
		{"kept", namespace("a", "kubernetes"), []corev1.FinalizerName{"kubernetes"}, "a"},
		{"appended", namespace("a", "example.com/x"), []corev1.FinalizerName{"example.com/x", "kubernetes"}, "a"},
		{"generateName", namespace(""), []corev1.FinalizerName{"kubernetes"}, ""},
	}
	s := mustResource(t, "namespaces").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating, Conditions: []corev1.NamespaceCondition{{Type: "X"}}}
			s.PrepareForCreate(tt.in)
			if !reflect.DeepEqual(tt.in.Status, corev1.NamespaceStatus{Phase: corev1.NamespaceActive}) {
				t.Errorf("status = %+v", tt.in.Status)
			}
			if !reflect.DeepEqual(tt.in.Spec.Finalizers, tt.finalizers) {
				t.Errorf("finalizers = %v, want %v", tt.in.Spec.Finalizers, tt.finalizers)
			}
			if got := tt.in.Labels[corev1.LabelMetadataName]; got != tt.label {
				t.Errorf("name label = %q, want %q", got, tt.label)
			}
		})
	}
}

func TestNamespaceCanonicalizeSetsNameLabel(t *testing.T) {
	ns := namespace("")
	s := mustResource(t, "namespaces").GetStrategy()
	s.PrepareForCreate(ns)
	ns.Name = "gen-x1"
	s.(interface{ Canonicalize(runtime.Object) }).Canonicalize(ns)
	if got := ns.Labels[corev1.LabelMetadataName]; got != "gen-x1" {
		t.Errorf("name label = %q", got)
	}
}

func TestNamespacePrepareForUpdate(t *testing.T) {
	old := namespace("a", "kubernetes")
	old.Status.Phase = corev1.NamespaceTerminating
	ns := namespace("a", "example.com/other")
	ns.Labels = map[string]string{corev1.LabelMetadataName: "changed", "team": "x"}
	mustResource(t, "namespaces").GetStrategy().PrepareForUpdate(ns, old)
	if !reflect.DeepEqual(ns.Spec.Finalizers, old.Spec.Finalizers) || !reflect.DeepEqual(ns.Status, old.Status) {
		t.Errorf("spec.finalizers %v status %+v: not the old ones", ns.Spec.Finalizers, ns.Status)
	}
	if ns.Labels[corev1.LabelMetadataName] != "a" || ns.Labels["team"] != "x" {
		t.Errorf("labels = %v", ns.Labels)
	}
}

func TestNamespaceValidate(t *testing.T) {
	tests := []struct {
		name string
		ns   *corev1.Namespace
		want errs
	}{
		{"valid", namespace("a", "kubernetes", "example.com/x"), nil},
		{"spec finalizer without domain", namespace("a", "foo"), errs{"FieldValueInvalid spec.finalizers"}},
		{"spec finalizer not a qualified name", namespace("a", "example.com/a b"), errs{"FieldValueInvalid spec.finalizers"}},
		{"standard metadata finalizers", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", Finalizers: []string{"orphan", "foregroundDeletion", "example.com/x"}}}, nil},
		{"metadata finalizer without domain", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", Finalizers: []string{"example.com/x", "foo"}}}, errs{"FieldValueInvalid metadata.finalizers[1]"}},
	}
	s := mustResource(t, "namespaces").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.Validate(tt.ns), tt.want)
			checkErrs(t, s.ValidateUpdate(tt.ns, namespace("a")), tt.want)
		})
	}
}

func TestNamespaceNameValidation(t *testing.T) {
	v := mustResource(t, "namespaces").ValidateName
	if msgs := v("team-a", false); len(msgs) != 0 {
		t.Errorf("team-a: %v", msgs)
	}
	for _, bad := range []string{"a.b", "A", "-a"} {
		if msgs := v(bad, false); len(msgs) == 0 {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestNamespaceStatusStrategy(t *testing.T) {
	now := metav1.Now()
	tests := []struct {
		name    string
		phase   corev1.NamespacePhase
		deleted bool
		want    errs
	}{
		{"active", corev1.NamespaceActive, false, nil},
		{"terminating", corev1.NamespaceTerminating, true, nil},
		{"terminating without deletion", corev1.NamespaceTerminating, false, errs{"FieldValueInvalid status.Phase"}},
		{"active while deleted", corev1.NamespaceActive, true, errs{"FieldValueInvalid status.Phase"}},
	}
	s := NamespaceStatusStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := namespace("a", "kubernetes")
			ns := namespace("a")
			ns.Status.Phase = tt.phase
			if tt.deleted {
				ns.DeletionTimestamp = &now
			}
			s.PrepareForUpdate(ns, old)
			if !reflect.DeepEqual(ns.Spec, old.Spec) {
				t.Errorf("spec changed through status: %+v", ns.Spec)
			}
			checkErrs(t, s.ValidateUpdate(ns, old), tt.want)
		})
	}
}

func TestNamespaceFinalizeStrategy(t *testing.T) {
	s := NamespaceFinalizeStrategy()
	old := namespace("a", "kubernetes")
	old.Status.Phase = corev1.NamespaceTerminating

	ns := namespace("a")
	ns.Status.Phase = corev1.NamespaceActive
	s.PrepareForUpdate(ns, old)
	if !reflect.DeepEqual(ns.Status, old.Status) || len(ns.Spec.Finalizers) != 0 {
		t.Errorf("status %+v finalizers %v", ns.Status, ns.Spec.Finalizers)
	}
	checkErrs(t, s.ValidateUpdate(ns, old), nil)

	bad := namespace("a", "kubernetes", "foo")
	checkErrs(t, s.ValidateUpdate(bad, old), errs{"FieldValueInvalid spec.finalizers[1]", "FieldValueInvalid spec.finalizers"})
}

func TestNamespaceLifecycleHelpers(t *testing.T) {
	for name, want := range map[string]bool{"default": true, "kube-system": true, "kube-public": true, "kube-node-lease": false, "team-a": false} {
		if got := IsImmortalNamespace(name); got != want {
			t.Errorf("IsImmortalNamespace(%q) = %v", name, got)
		}
	}

	err := ImmortalNamespaceError("default")
	if !apierrors.IsForbidden(err) || err.Error() != `namespaces "default" is forbidden: this namespace may not be deleted` {
		t.Errorf("ImmortalNamespaceError = %v", err)
	}

	err = NamespaceTerminatingError(corev1.Resource("configmaps"), "c", "gone")
	if !apierrors.IsForbidden(err) || !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		t.Errorf("NamespaceTerminatingError = %#v", err)
	}
	if want := `configmaps "c" is forbidden: unable to create new content in namespace gone because it is being terminated`; err.Error() != want {
		t.Errorf("message %q", err.Error())
	}
	cause := err.ErrStatus.Details.Causes[len(err.ErrStatus.Details.Causes)-1]
	if cause.Field != "metadata.namespace" || cause.Message != "namespace gone is being terminated" {
		t.Errorf("cause %+v", cause)
	}

	ns := namespace("a", "example.com/x", FinalizerKubernetes)
	MarkNamespaceTerminating(ns)
	if ns.Status.Phase != corev1.NamespaceTerminating {
		t.Errorf("phase %q", ns.Status.Phase)
	}
	if !RemoveNamespaceFinalizer(ns, FinalizerKubernetes) || RemoveNamespaceFinalizer(ns, FinalizerKubernetes) {
		t.Error("RemoveNamespaceFinalizer: wrong report")
	}
	if NamespaceFinalized(ns) {
		t.Error("finalized with example.com/x left")
	}
	RemoveNamespaceFinalizer(ns, "example.com/x")
	if !NamespaceFinalized(ns) {
		t.Errorf("not finalized: %v", ns.Spec.Finalizers)
	}
}

func TestRemoveNamespaceFinalizerKeepsOriginal(t *testing.T) {
	fs := []corev1.FinalizerName{"kubernetes", "example.com/x"}
	ns := namespace("a", fs...)
	RemoveNamespaceFinalizer(ns, "kubernetes")
	if fs[0] != "kubernetes" {
		t.Error("the original slice was modified")
	}
}

func TestNamespaceFieldsAndColumns(t *testing.T) {
	r := mustResource(t, "namespaces")
	ns := namespace("a")
	ns.Status.Phase = corev1.NamespaceTerminating
	if got := fieldValue(t, r, ns, "status.phase"); got != "Terminating" {
		t.Errorf("status.phase = %q", got)
	}
	if got := fieldValue(t, r, ns, "metadata.name"); got != "a" {
		t.Errorf("metadata.name = %q", got)
	}
	if _, ok := r.FieldValue(mustMap(t, ns), "spec.finalizers"); ok {
		t.Error("spec.finalizers is selectable")
	}
	if got := cell(t, r, "Status", ns); got != "Terminating" {
		t.Errorf("Status cell = %v", got)
	}
	if got := cell(t, r, "Status", namespace("b")); got != "" {
		t.Errorf("Status cell of no phase = %#v", got)
	}
}
