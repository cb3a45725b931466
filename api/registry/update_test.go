package registry_test

import (
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/registry"
)

// update replaces default/cm.Name with cm and returns the stored result.
func update(t *testing.T, s *registry.Store, cm *corev1.ConfigMap, opts registry.WriteOptions) (*corev1.ConfigMap, error) {
	t.Helper()
	r, err := s.Update(testContext(t), metav1.NamespaceDefault, cm.Name, cm, opts)
	if err != nil {
		return nil, err
	}
	return decode[corev1.ConfigMap](t, r.Data), nil
}

func TestUpdateStaleResourceVersion(t *testing.T) {
	s := newFixture(t).configMaps(t)
	first := createConfigMap(t, s, configMap("a", "k", "v1"))
	stale := first.DeepCopy()
	first.Data["k"] = "v2"
	second, err := update(t, s, first, registry.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale.Data["k"] = "v3"
	_, err = update(t, s, stale, registry.WriteOptions{})
	se := wantStatus(t, err, 409, metav1.StatusReasonConflict)
	if d := se.ErrStatus.Details; d == nil || d.Name != "a" || d.Kind != "configmaps" {
		t.Errorf("details %+v, want configmaps a", d)
	}
	if got := getConfigMap(t, s, "a"); got.Data["k"] != "v2" || got.ResourceVersion != second.ResourceVersion {
		t.Errorf("stored %v at %s, want v2 at %s", got.Data, got.ResourceVersion, second.ResourceVersion)
	}
}

func TestUpdateWithoutResourceVersion(t *testing.T) {
	s := newFixture(t).configMaps(t)
	created := createConfigMap(t, s, configMap("a", "k", "v1"))
	createConfigMap(t, s, configMap("b")) // moves the store past a's revision
	got, err := update(t, s, configMap("a", "k", "v2"), registry.WriteOptions{})
	if err != nil {
		t.Fatalf("unconditional update: %v", err)
	}
	if got.Data["k"] != "v2" || rv(t, got) <= rv(t, created) {
		t.Errorf("updated %v at %s, want v2 after %s", got.Data, got.ResourceVersion, created.ResourceVersion)
	}
	if got.UID != created.UID || !got.CreationTimestamp.Equal(&created.CreationTimestamp) {
		t.Errorf("uid %s, creationTimestamp %v: want the created object's %s, %v", got.UID, got.CreationTimestamp, created.UID, created.CreationTimestamp)
	}
}

func TestUpdateErrors(t *testing.T) {
	tests := []struct {
		name   string
		url    string // the name the update is sent to
		cm     *corev1.ConfigMap
		code   int32
		reason metav1.StatusReason
	}{
		{"name mismatch", "a", configMap("b"), 400, metav1.StatusReasonBadRequest},
		{"missing object", "missing", configMap("missing"), 404, metav1.StatusReasonNotFound},
		{"invalid data key", "a", configMap("a", "bad key!", "v"), 422, metav1.StatusReasonInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.configMaps(t)
			createConfigMap(t, s, configMap("a", "k", "v"))
			before := f.storage.Revision()
			_, err := s.Update(testContext(t), metav1.NamespaceDefault, tt.url, tt.cm, registry.WriteOptions{})
			wantStatus(t, err, tt.code, tt.reason)
			if f.storage.Revision() != before {
				t.Error("a refused update wrote")
			}
		})
	}
}

func TestUpdateNoOpKeepsResourceVersion(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	created := createConfigMap(t, s, configMap("a", "k", "v"))
	before := f.storage.Revision()
	got, err := update(t, s, created.DeepCopy(), registry.WriteOptions{Manager: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != created.ResourceVersion || f.storage.Revision() != before {
		t.Errorf("no-op update: resourceVersion %s → %s, store %d → %d; want no write",
			created.ResourceVersion, got.ResourceVersion, before, f.storage.Revision())
	}
}

func TestUpdateImmutableConfigMap(t *testing.T) {
	s := newFixture(t).configMaps(t)
	cm := configMap("a", "k", "v")
	immutable := true
	cm.Immutable = &immutable
	created := createConfigMap(t, s, cm)
	created.Data["k"] = "changed"
	_, err := update(t, s, created, registry.WriteOptions{})
	se := wantStatus(t, err, 422, metav1.StatusReasonInvalid)
	wantCause(t, se, metav1.CauseTypeForbidden, "data")
}

// lease returns a lease named name held by holder.
func lease(name, holder string) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder},
	}
}

// TestUpdateGeneration: a resource that tracks metadata.generation (custom
// resources, CRDs) starts it at 1 and bumps it on a spec change only; one
// that does not (kube's Leases, ConfigMaps, ...) keeps what the object was
// created with and never moves it. No update sets it.
func TestUpdateGeneration(t *testing.T) {
	holder := func(l *coordinationv1.Lease) { h := "other"; l.Spec.HolderIdentity = &h }
	labels := func(l *coordinationv1.Lease) { l.Labels = map[string]string{"a": "b"} }
	annotations := func(l *coordinationv1.Lease) { l.Annotations = map[string]string{"a": "b"} }
	clientSet := func(l *coordinationv1.Lease) { l.Generation = 9 }
	tests := []struct {
		name          string
		tracks        bool
		sent, created int64
		change        func(l *coordinationv1.Lease)
		want          int64
	}{
		{"tracked: spec change bumps", true, 5, 1, holder, 2},
		{"tracked: label change keeps", true, 0, 1, labels, 1},
		{"tracked: annotation change keeps", true, 0, 1, annotations, 1},
		{"tracked: client-set generation ignored", true, 0, 1, clientSet, 1},
		{"untracked: none on create, spec change keeps", false, 0, 0, holder, 0},
		{"untracked: created one kept through a spec change", false, 5, 5, holder, 5},
		{"untracked: client-set generation ignored", false, 0, 0, clientSet, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.store(t, leasesGVR)
			f.res.Get(leasesGVR).TracksGeneration = tt.tracks
			in := lease("l", "me")
			in.Generation = tt.sent
			r, err := s.Create(testContext(t), metav1.NamespaceDefault, in, registry.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			l := decode[coordinationv1.Lease](t, r.Data)
			if l.Generation != tt.created {
				t.Fatalf("created with generation %d, want %d", l.Generation, tt.created)
			}
			tt.change(l)
			r, err = s.Update(testContext(t), metav1.NamespaceDefault, "l", l, registry.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := decode[coordinationv1.Lease](t, r.Data).Generation; got != tt.want {
				t.Errorf("generation %d, want %d", got, tt.want)
			}
		})
	}
}

func TestUpdateRecordsManager(t *testing.T) {
	s := newFixture(t).configMaps(t)
	created := createConfigMap(t, s, configMap("a", "k1", "v1"))
	created.Data["k2"] = "v2"
	got, err := update(t, s, created, registry.WriteOptions{Manager: "editor"})
	if err != nil {
		t.Fatal(err)
	}
	wantManaged(t, got, "editor", metav1.ManagedFieldsOperationUpdate, `"f:k2"`)
	wantManaged(t, got, "test", metav1.ManagedFieldsOperationUpdate, `"f:k1"`)
	if e := managedEntry(got, "editor", metav1.ManagedFieldsOperationUpdate); e.APIVersion != "v1" || e.FieldsType != "FieldsV1" {
		t.Errorf("entry %+v, want apiVersion v1, FieldsV1", e)
	}
}
