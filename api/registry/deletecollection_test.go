package registry_test

import (
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/raftapi/raftapi/api/registry"
)

func TestDeleteCollectionWithLabelSelector(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	f.namespace(t, "other")
	createConfigMap(t, s, withLabels(configMap("a"), "app", "x"))
	createConfigMap(t, s, withLabels(configMap("b"), "app", "y"))
	createConfigMap(t, s, withLabels(configMap("c"), "app", "x"))
	createConfigMap(t, s, configMap("d"))
	if _, err := s.Create(testContext(t), "other", withLabels(configMap("e"), "app", "x"), registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	sel := labels.SelectorFromSet(labels.Set{"app": "x"})
	deleted, err := s.DeleteCollection(testContext(t), metav1.NamespaceDefault, registry.ListOptions{LabelSelector: sel}, &metav1.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, deleted.Items); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("deleted %v, want [a c]", got)
	}
	left, err := s.List(testContext(t), "", registry.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, left.Items); !slices.Equal(got, []string{"b", "d", "e"}) {
		t.Errorf("left %v, want [b d] in default and e in other", got)
	}
}

// TestDeleteCollectionPropagation: every object gets the policy's
// finalizer, not only the first.
func TestDeleteCollectionPropagation(t *testing.T) {
	s := newFixture(t).configMaps(t)
	createConfigMap(t, s, configMap("a"))
	createConfigMap(t, s, configMap("b"))
	foreground := metav1.DeletePropagationForeground
	opts := &metav1.DeleteOptions{PropagationPolicy: &foreground}
	if _, err := s.DeleteCollection(testContext(t), metav1.NamespaceDefault, registry.ListOptions{}, opts); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		got := getConfigMap(t, s, name)
		if got == nil || !slices.Equal(got.Finalizers, []string{metav1.FinalizerDeleteDependents}) {
			t.Errorf("%s after a foreground deletecollection: %+v, want it kept with the foregroundDeletion finalizer", name, got)
		}
	}
}

// TestDeleteCollectionPreconditionsApplyToEveryObject: as kube-apiserver's
// store, each object is deleted with the same options, so a uid
// precondition that only one object meets fails the collection with 409.
func TestDeleteCollectionPreconditionsApplyToEveryObject(t *testing.T) {
	s := newFixture(t).configMaps(t)
	a := createConfigMap(t, s, configMap("a"))
	createConfigMap(t, s, configMap("b"))
	opts := &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &a.UID}}
	_, err := s.DeleteCollection(testContext(t), metav1.NamespaceDefault, registry.ListOptions{}, opts)
	if !apierrors.IsConflict(err) {
		t.Fatalf("deletecollection with a uid precondition met by one of two objects = %v, want 409 Conflict", err)
	}
	if getConfigMap(t, s, "b") == nil {
		t.Error("b was deleted although its uid is not the precondition's")
	}
}
