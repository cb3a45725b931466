package registry_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/registry"
)

func TestCreateSetsServerFields(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	cm := configMap("a", "k", "v")
	// What the client sends of the server-owned metadata is replaced,
	// but for the generation of a resource that does not track it, which
	// kube-apiserver stores as sent.
	cm.UID = "client-uid"
	cm.ResourceVersion = "42"
	cm.Generation = 7
	cm.CreationTimestamp = metav1.Unix(1, 0)
	ts := metav1.Unix(2, 0)
	cm.DeletionTimestamp = &ts

	r, err := s.Create(testContext(t), metav1.NamespaceDefault, cm, registry.WriteOptions{Manager: "creator"})
	if err != nil {
		t.Fatal(err)
	}
	got := decode[corev1.ConfigMap](t, r.Data)
	if !strings.HasPrefix(string(got.UID), "uid-") {
		t.Errorf("uid %q, want one from Options.NewUID", got.UID)
	}
	if !got.CreationTimestamp.Time.Equal(now) {
		t.Errorf("creationTimestamp %v, want %v", got.CreationTimestamp, now)
	}
	if got.Generation != 7 || got.DeletionTimestamp != nil || got.Namespace != metav1.NamespaceDefault {
		t.Errorf("generation %d, deletionTimestamp %v, namespace %q; want 7, nil, default", got.Generation, got.DeletionTimestamp, got.Namespace)
	}
	if rv(t, got) != f.storage.Revision() {
		t.Errorf("resourceVersion %s, want the store's revision %d", got.ResourceVersion, f.storage.Revision())
	}
	if got.APIVersion != "v1" || got.Kind != "ConfigMap" {
		t.Errorf("stored as %s %s, want v1 ConfigMap", got.APIVersion, got.Kind)
	}
	wantManaged(t, got, "creator", metav1.ManagedFieldsOperationUpdate, `"f:k"`)
	if stored := getConfigMap(t, s, "a"); stored == nil || stored.UID != got.UID || stored.ResourceVersion != got.ResourceVersion {
		t.Errorf("stored %+v, want what Create returned", stored)
	}
}

func TestCreateGenerateName(t *testing.T) {
	s := newFixture(t).configMaps(t)
	seen := map[string]bool{}
	for range 3 {
		cm := configMap("")
		cm.GenerateName = "gen-"
		got := createConfigMap(t, s, cm)
		if !strings.HasPrefix(got.Name, "gen-") || len(got.Name) != len("gen-")+5 || got.GenerateName != "gen-" {
			t.Errorf("name %q (generateName %q), want gen- and 5 random characters", got.Name, got.GenerateName)
		}
		if seen[got.Name] {
			t.Errorf("name %q generated twice", got.Name)
		}
		seen[got.Name] = true
		if getConfigMap(t, s, got.Name) == nil {
			t.Errorf("%s not stored", got.Name)
		}
	}
}

func TestCreateAlreadyExists(t *testing.T) {
	s := newFixture(t).configMaps(t)
	first := createConfigMap(t, s, configMap("a", "k", "first"))
	_, err := s.Create(testContext(t), metav1.NamespaceDefault, configMap("a", "k", "second"), registry.WriteOptions{})
	se := wantStatus(t, err, 409, metav1.StatusReasonAlreadyExists)
	if d := se.ErrStatus.Details; d == nil || d.Name != "a" || d.Kind != "configmaps" {
		t.Errorf("details %+v, want configmaps a", d)
	}
	if got := getConfigMap(t, s, "a"); got.Data["k"] != "first" || got.ResourceVersion != first.ResourceVersion {
		t.Errorf("stored %+v, want the first create untouched", got)
	}
}

func TestCreateNamespaceAdmission(t *testing.T) {
	f := newFixture(t)
	f.namespace(t, "doomed")
	if _, err := f.store(t, namespacesGVR).Delete(testContext(t), "", "doomed", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ns  string
		code      int32
		reason    metav1.StatusReason
		kind      string // the resource Details names
		causeType metav1.CauseType
	}{
		{"missing namespace", "missing", 404, metav1.StatusReasonNotFound, "namespaces", ""},
		{"terminating namespace", "doomed", 403, metav1.StatusReasonForbidden, "configmaps", corev1.NamespaceTerminatingCause},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.storage.Revision()
			_, err := f.configMaps(t).Create(testContext(t), tt.ns, configMap("a"), registry.WriteOptions{})
			se := wantStatus(t, err, tt.code, tt.reason)
			if d := se.ErrStatus.Details; d == nil || d.Kind != tt.kind {
				t.Errorf("details %+v, want kind %s", d, tt.kind)
			}
			if tt.causeType != "" {
				wantCause(t, se, tt.causeType, "metadata.namespace")
			}
			if f.storage.Revision() != before {
				t.Errorf("revision %d → %d: a refused create wrote", before, f.storage.Revision())
			}
		})
	}
}

func TestCreateValidation(t *testing.T) {
	tests := []struct {
		name      string
		cm        *corev1.ConfigMap
		causeType metav1.CauseType
		field     string
	}{
		{"invalid data key", configMap("a", "bad key!", "v"), metav1.CauseTypeFieldValueInvalid, "data[bad key!]"},
		{"invalid name", configMap("Bad_Name"), metav1.CauseTypeFieldValueInvalid, "metadata.name"},
		{"missing name", configMap(""), metav1.CauseTypeFieldValueRequired, "metadata.name"},
		{"invalid finalizer", withFinalizers(configMap("a"), "no-domain"), metav1.CauseTypeFieldValueInvalid, "metadata.finalizers[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			before := f.storage.Revision()
			_, err := f.configMaps(t).Create(testContext(t), metav1.NamespaceDefault, tt.cm, registry.WriteOptions{})
			se := wantStatus(t, err, 422, metav1.StatusReasonInvalid)
			wantCause(t, se, tt.causeType, tt.field)
			if d := se.ErrStatus.Details; d == nil || d.Kind != "ConfigMap" || d.Name != tt.cm.Name {
				t.Errorf("details %+v, want ConfigMap %q", d, tt.cm.Name)
			}
			if f.storage.Revision() != before {
				t.Errorf("an invalid create wrote")
			}
		})
	}
}

func TestCreateNamespaceMismatch(t *testing.T) {
	f := newFixture(t)
	cm := configMap("a")
	cm.Namespace = "other"
	_, err := f.configMaps(t).Create(testContext(t), metav1.NamespaceDefault, cm, registry.WriteOptions{})
	wantStatus(t, err, 400, metav1.StatusReasonBadRequest)
}

func TestCreateDryRun(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	before := f.storage.Revision()
	r, err := s.Create(testContext(t), metav1.NamespaceDefault, configMap("a", "k", "v"), registry.WriteOptions{DryRun: true, Manager: "m"})
	if err != nil {
		t.Fatal(err)
	}
	got := decode[corev1.ConfigMap](t, r.Data)
	if got.Name != "a" || got.UID == "" || got.Generation != 0 || got.Data["k"] != "v" {
		t.Errorf("dry-run answer %+v, want the object as it would be created", got)
	}
	if f.storage.Revision() != before || getConfigMap(t, s, "a") != nil {
		t.Fatal("a dry-run create stored the object")
	}

	createConfigMap(t, s, configMap("b", "k", "v"))
	before = f.storage.Revision()
	_, err = s.Create(testContext(t), metav1.NamespaceDefault, configMap("b", "k", "w"), registry.WriteOptions{DryRun: true})
	wantStatus(t, err, 409, metav1.StatusReasonAlreadyExists)
	_, err = s.Create(testContext(t), metav1.NamespaceDefault, configMap("c", "bad key!", "v"), registry.WriteOptions{DryRun: true})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid)
	_, err = s.Create(testContext(t), "missing", configMap("d"), registry.WriteOptions{DryRun: true})
	if !apierrors.IsNotFound(err) {
		t.Errorf("dry-run create in a missing namespace: %v, want NotFound", err)
	}
	if f.storage.Revision() != before {
		t.Error("a refused dry-run create wrote")
	}
}

func TestCreateDryRunInMissingSystemNamespace(t *testing.T) {
	// A dry run in a system namespace not created yet must not create it:
	// a dry run writes nothing.
	f := newFixture(t)
	before := f.storage.Revision()
	_, err := f.configMaps(t).Create(testContext(t), metav1.NamespacePublic, configMap("a"), registry.WriteOptions{DryRun: true})
	if err != nil {
		t.Fatalf("dry-run create in a system namespace: %v, want it to succeed as a real create would", err)
	}
	if f.storage.Revision() != before {
		t.Errorf("revision %d → %d: a dry-run create wrote", before, f.storage.Revision())
	}
}
