package registry_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/registry"
)

// deleteConfigMap deletes default/name with opts.
func deleteConfigMap(t *testing.T, s *registry.Store, name string, opts *metav1.DeleteOptions) (registry.DeleteResult, error) {
	t.Helper()
	return s.Delete(testContext(t), metav1.NamespaceDefault, name, opts)
}

func TestDeletePreconditions(t *testing.T) {
	str := func(s string) *string { return &s }
	uid := func(s string) *types.UID { u := types.UID(s); return &u }
	tests := []struct {
		name string
		// pre builds the preconditions from the created object.
		pre      func(cm *corev1.ConfigMap) *metav1.Preconditions
		conflict bool
	}{
		{"matching uid and resourceVersion", func(cm *corev1.ConfigMap) *metav1.Preconditions {
			return &metav1.Preconditions{UID: &cm.UID, ResourceVersion: &cm.ResourceVersion}
		}, false},
		{"other uid", func(*corev1.ConfigMap) *metav1.Preconditions {
			return &metav1.Preconditions{UID: uid("other")}
		}, true},
		{"stale resourceVersion", func(*corev1.ConfigMap) *metav1.Preconditions {
			return &metav1.Preconditions{ResourceVersion: str("1")}
		}, true},
		{"matching uid, stale resourceVersion", func(cm *corev1.ConfigMap) *metav1.Preconditions {
			return &metav1.Preconditions{UID: &cm.UID, ResourceVersion: str("1")}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFixture(t).configMaps(t)
			created := createConfigMap(t, s, configMap("a"))
			d, err := deleteConfigMap(t, s, "a", &metav1.DeleteOptions{Preconditions: tt.pre(created)})
			if tt.conflict {
				wantStatus(t, err, 409, metav1.StatusReasonConflict)
				if getConfigMap(t, s, "a") == nil {
					t.Error("a refused delete removed the object")
				}
				return
			}
			if err != nil || !d.Gone {
				t.Fatalf("delete: gone %v, %v; want it gone", d.Gone, err)
			}
			if getConfigMap(t, s, "a") != nil {
				t.Error("deleted object still stored")
			}
		})
	}
}

func TestDeleteMissing(t *testing.T) {
	s := newFixture(t).configMaps(t)
	_, err := deleteConfigMap(t, s, "missing", &metav1.DeleteOptions{})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound)
}

func TestDeleteDryRun(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	createConfigMap(t, s, configMap("a"))
	before := f.storage.Revision()
	d, err := deleteConfigMap(t, s, "a", &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || !d.Gone {
		t.Fatalf("dry-run delete: gone %v, %v; want gone", d.Gone, err)
	}
	if getConfigMap(t, s, "a") == nil || f.storage.Revision() != before {
		t.Error("a dry-run delete removed the object")
	}
}

func TestDeleteWithFinalizers(t *testing.T) {
	s := newFixture(t).configMaps(t)
	createConfigMap(t, s, withFinalizers(configMap("a"), "example.com/hold"))

	d, err := deleteConfigMap(t, s, "a", &metav1.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Gone {
		t.Fatal("delete of an object with a finalizer: Gone, want it kept")
	}
	marked := getConfigMap(t, s, "a")
	if marked == nil {
		t.Fatal("object with a finalizer removed")
	}
	if ts := marked.DeletionTimestamp; ts == nil || !ts.Time.Equal(now) {
		t.Errorf("deletionTimestamp %v, want %v", ts, now)
	}
	if g := marked.DeletionGracePeriodSeconds; g == nil || *g != 0 {
		t.Errorf("deletionGracePeriodSeconds %v, want 0", g)
	}
	if got := decode[corev1.ConfigMap](t, d.Data); got.ResourceVersion != marked.ResourceVersion {
		t.Errorf("delete answered resourceVersion %s, stored %s", got.ResourceVersion, marked.ResourceVersion)
	}

	// Removing the last finalizer deletes the object.
	marked.Finalizers = nil
	if _, err := update(t, s, marked, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := getConfigMap(t, s, "a"); got != nil {
		t.Errorf("object %+v still stored after its last finalizer went", got.ObjectMeta)
	}
}

func TestDeletePropagation(t *testing.T) {
	policy := func(p metav1.DeletionPropagation) *metav1.DeletionPropagation { return &p }
	yes := true
	tests := []struct {
		name           string
		opts           *metav1.DeleteOptions
		wantGone       bool
		wantFinalizers []string
	}{
		{"default", &metav1.DeleteOptions{}, true, nil},
		{"background", &metav1.DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationBackground)}, true, nil},
		{"foreground", &metav1.DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationForeground)},
			false, []string{metav1.FinalizerDeleteDependents}},
		{"orphan", &metav1.DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationOrphan)},
			false, []string{metav1.FinalizerOrphanDependents}},
		//lint:ignore SA1019 the deprecated field is still part of the API
		{"orphanDependents", &metav1.DeleteOptions{OrphanDependents: &yes},
			false, []string{metav1.FinalizerOrphanDependents}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFixture(t).configMaps(t)
			createConfigMap(t, s, configMap("a"))
			d, err := deleteConfigMap(t, s, "a", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := getConfigMap(t, s, "a")
			if d.Gone != tt.wantGone || (got == nil) != tt.wantGone {
				t.Fatalf("Gone %v, stored %v; want gone %v", d.Gone, got != nil, tt.wantGone)
			}
			if got == nil {
				return
			}
			if !slices.Equal(got.Finalizers, tt.wantFinalizers) || got.DeletionTimestamp == nil {
				t.Errorf("finalizers %v, deletionTimestamp %v; want %v and a deletionTimestamp", got.Finalizers, got.DeletionTimestamp, tt.wantFinalizers)
			}
		})
	}
}

func TestDeleteOptionsInvalid(t *testing.T) {
	policy := func(p metav1.DeletionPropagation) *metav1.DeletionPropagation { return &p }
	yes := true
	grace := int64(-1)
	tests := []struct {
		name  string
		opts  *metav1.DeleteOptions
		cause metav1.CauseType
		field string
	}{
		//lint:ignore SA1019 the deprecated field is still part of the API
		{"orphanDependents and propagationPolicy", &metav1.DeleteOptions{OrphanDependents: &yes, PropagationPolicy: policy(metav1.DeletePropagationForeground)},
			metav1.CauseTypeFieldValueInvalid, "propagationPolicy"},
		{"unknown propagationPolicy", &metav1.DeleteOptions{PropagationPolicy: policy("Sideways")},
			metav1.CauseTypeFieldValueNotSupported, "propagationPolicy"},
		{"negative gracePeriodSeconds", &metav1.DeleteOptions{GracePeriodSeconds: &grace},
			metav1.CauseTypeFieldValueInvalid, "gracePeriodSeconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFixture(t).configMaps(t)
			createConfigMap(t, s, configMap("a"))
			_, err := deleteConfigMap(t, s, "a", tt.opts)
			se := wantStatus(t, err, 422, metav1.StatusReasonInvalid)
			wantCause(t, se, tt.cause, tt.field)
			if got := getConfigMap(t, s, "a"); got == nil || got.DeletionTimestamp != nil {
				t.Errorf("a refused delete touched the object: %+v", got)
			}
		})
	}
}

func TestDeleteImmortalNamespace(t *testing.T) {
	f := newFixture(t)
	_, err := f.store(t, namespacesGVR).Delete(testContext(t), "", metav1.NamespaceDefault, &metav1.DeleteOptions{})
	want := builtin.ImmortalNamespaceError(metav1.NamespaceDefault)
	se := wantStatus(t, err, want.ErrStatus.Code, want.ErrStatus.Reason)
	if se.ErrStatus.Message != want.ErrStatus.Message {
		t.Errorf("message %q, want %q", se.ErrStatus.Message, want.ErrStatus.Message)
	}
	if f.nsDeleting.Load() != 0 {
		t.Error("NamespaceDeleting called for a refused delete")
	}
}

func TestDeleteNamespaceMarksTerminating(t *testing.T) {
	f := newFixture(t)
	f.namespace(t, "doomed")
	nss := f.store(t, namespacesGVR)
	d, err := nss.Delete(testContext(t), "", "doomed", &metav1.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Gone {
		t.Error("namespace delete: Gone, want it kept until the lifecycle empties it")
	}
	o, err := nss.Get(testContext(t), "", "doomed", registry.GetOptions{})
	if err != nil {
		t.Fatalf("namespace removed at once: %v", err)
	}
	ns := decode[corev1.Namespace](t, o.Data)
	if ns.Status.Phase != corev1.NamespaceTerminating || ns.DeletionTimestamp == nil {
		t.Errorf("phase %s, deletionTimestamp %v; want Terminating with a deletionTimestamp", ns.Status.Phase, ns.DeletionTimestamp)
	}
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		t.Errorf("spec.finalizers %v, want kubernetes kept", ns.Spec.Finalizers)
	}
	if n := f.nsDeleting.Load(); n != 1 {
		t.Errorf("NamespaceDeleting called %d times, want 1", n)
	}
}

func TestDeleteWithFinalizersDoesNotSignalNamespaceDeleting(t *testing.T) {
	// Only a namespace marked for deletion wakes the namespace lifecycle,
	// as Options documents.
	f := newFixture(t)
	s := f.configMaps(t)
	createConfigMap(t, s, withFinalizers(configMap("a"), "example.com/hold"))
	if _, err := deleteConfigMap(t, s, "a", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := f.nsDeleting.Load(); n != 0 {
		t.Errorf("NamespaceDeleting called %d times for a configmap, want 0", n)
	}
}
