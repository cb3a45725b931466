package serviceaccount

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// waitTimeout bounds every wait: the watch reacts within a moment, and
// the controller's full pass (a minute apart) cannot be what a test sees.
const waitTimeout = 10 * time.Second

type fixture struct {
	reg     *registry.Registry
	storage *registrytest.Storage
}

// start runs a controller over a new registry holding namespace "team",
// on the leader.
func start(t *testing.T, rootCA string) *fixture {
	t.Helper()
	reg, storage := registrytest.NewRegistry(t, registry.Options{})
	run(t, reg, rootCA)
	f := &fixture{reg: reg, storage: storage}
	f.createNamespace(t, "team")
	return f
}

// run runs a controller of reg publishing rootCA until the test ends.
func run(t *testing.T, reg *registry.Registry, rootCA string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		New(reg, []byte(rootCA), nil).Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

func (f *fixture) store(gvr string) *registry.Store {
	return f.reg.Store(f.reg.Resources().Get(schema.GroupVersionResource{Version: "v1", Resource: gvr}))
}

func (f *fixture) createNamespace(t *testing.T, name string) {
	t.Helper()
	if _, err := f.store("namespaces").Create(context.Background(), "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// get reads ns/name of resource gvr into into; false when it is missing.
func (f *fixture) get(t *testing.T, gvr, ns, name string, into any) bool {
	t.Helper()
	o, err := f.store(gvr).Get(context.Background(), ns, name, registry.GetOptions{})
	if err != nil {
		return false
	}
	if err := json.Unmarshal(o.Data, into); err != nil {
		t.Fatal(err)
	}
	return true
}

// eventually polls cond until it returns nil or the wait times out.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rootCAInOrder checks the configmap kube's publisher keeps.
func (f *fixture) rootCAInOrder(t *testing.T, ns string) func() error {
	return func() error {
		var cm corev1.ConfigMap
		if !f.get(t, "configmaps", ns, RootCAConfigMap, &cm) {
			return fmt.Errorf("no configmap %s/%s", ns, RootCAConfigMap)
		}
		if len(cm.Data) != 1 || cm.Data[RootCAKey] != testCA || cm.Annotations[DescriptionAnnotation] != Description {
			return fmt.Errorf("configmap data %v annotations %v", cm.Data, cm.Annotations)
		}
		return nil
	}
}

func (f *fixture) serviceAccountExists(t *testing.T, ns string) func() error {
	return func() error {
		var sa corev1.ServiceAccount
		if !f.get(t, "serviceaccounts", ns, "default", &sa) {
			return fmt.Errorf("no service account %s/default", ns)
		}
		return nil
	}
}

func TestNewNamespaceGetsDefaultServiceAccountAndRootCA(t *testing.T) {
	f := start(t, testCA)
	eventually(t, "default service account of team", f.serviceAccountExists(t, "team"))
	eventually(t, "root CA of team", f.rootCAInOrder(t, "team"))
	f.createNamespace(t, "late")
	eventually(t, "default service account of a namespace created later", f.serviceAccountExists(t, "late"))
	eventually(t, "root CA of a namespace created later", f.rootCAInOrder(t, "late"))
}

func TestDeletedObjectsComeBack(t *testing.T) {
	f := start(t, testCA)
	eventually(t, "default service account", f.serviceAccountExists(t, "team"))
	eventually(t, "root CA", f.rootCAInOrder(t, "team"))
	var sa corev1.ServiceAccount
	f.get(t, "serviceaccounts", "team", "default", &sa)
	if _, err := f.store("serviceaccounts").Delete(context.Background(), "team", "default", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store("configmaps").Delete(context.Background(), "team", RootCAConfigMap, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "default service account created again", func() error {
		var again corev1.ServiceAccount
		if !f.get(t, "serviceaccounts", "team", "default", &again) || again.UID == sa.UID {
			return fmt.Errorf("no new service account (uid %s)", again.UID)
		}
		return nil
	})
	eventually(t, "root CA created again", f.rootCAInOrder(t, "team"))
}

// TestChangedRootCAIsPutBack: data is put back and the description
// restored; annotations of others stay.
func TestChangedRootCAIsPutBack(t *testing.T) {
	f := start(t, testCA)
	eventually(t, "root CA", f.rootCAInOrder(t, "team"))
	var cm corev1.ConfigMap
	f.get(t, "configmaps", "team", RootCAConfigMap, &cm)
	cm.Data = map[string]string{RootCAKey: "forged", "extra": "x"}
	cm.Annotations = map[string]string{"example.com/note": "kept"}
	if _, err := f.store("configmaps").Update(context.Background(), "team", RootCAConfigMap, &cm, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "root CA put back", f.rootCAInOrder(t, "team"))
	f.get(t, "configmaps", "team", RootCAConfigMap, &cm)
	if cm.Annotations["example.com/note"] != "kept" {
		t.Errorf("annotations = %v, want others' kept", cm.Annotations)
	}
}

func TestTerminatingNamespaceIsLeftAlone(t *testing.T) {
	f := start(t, testCA)
	eventually(t, "default service account", f.serviceAccountExists(t, "team"))
	// A finalizer on the namespace's content keeps it terminating.
	if _, err := f.store("secrets").Create(context.Background(), "team", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}}, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store("namespaces").Delete(context.Background(), "", "team", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store("serviceaccounts").Delete(context.Background(), "team", "default", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// A namespace created after the deletion is served, so the
	// controller has seen the deletion's events by then.
	f.createNamespace(t, "marker")
	eventually(t, "marker namespace served", f.serviceAccountExists(t, "marker"))
	var sa corev1.ServiceAccount
	if f.get(t, "serviceaccounts", "team", "default", &sa) {
		t.Fatal("default service account created again in a terminating namespace")
	}
}

func TestNoRootCAWithoutABundle(t *testing.T) {
	f := start(t, "")
	eventually(t, "default service account", f.serviceAccountExists(t, "team"))
	var cm corev1.ConfigMap
	if f.get(t, "configmaps", "team", RootCAConfigMap, &cm) {
		t.Fatal("a root CA configmap without a CA bundle")
	}
}

// countingStorage counts the controller's leadership checks.
type countingStorage struct {
	*registrytest.Storage
	checks atomic.Int64
}

func (s *countingStorage) IsLeader() bool {
	s.checks.Add(1)
	return s.Storage.IsLeader()
}

// TestOnlyTheLeaderActs: a follower writes nothing; once it leads it
// brings every namespace in order.
func TestOnlyTheLeaderActs(t *testing.T) {
	storage := &countingStorage{Storage: registrytest.New()}
	storage.SetLeader(false)
	t.Cleanup(func() { _ = storage.Close() })
	reg := registry.New(resource.NewRegistry(builtin.Resources()...), storage, registry.Options{})
	f := &fixture{reg: reg, storage: storage.Storage}
	f.createNamespace(t, "team")
	run(t, reg, testCA)
	eventually(t, "two leadership checks", func() error {
		if n := storage.checks.Load(); n < 2 {
			return fmt.Errorf("%d checks", n)
		}
		return nil
	})
	var sa corev1.ServiceAccount
	if f.get(t, "serviceaccounts", "team", "default", &sa) {
		t.Fatal("a follower created the default service account")
	}
	storage.SetLeader(true)
	eventually(t, "default service account once leading", f.serviceAccountExists(t, "team"))
	eventually(t, "root CA once leading", f.rootCAInOrder(t, "team"))
}

// TestNamespaceCreatedBetweenListAndWatch: the first namespace of an
// empty store, created after the controller's list and before its watch,
// is brought in order without waiting for the next full pass.
func TestNamespaceCreatedBetweenListAndWatch(t *testing.T) {
	storage := registrytest.New()
	t.Cleanup(func() { _ = storage.Close() })
	resources := resource.NewRegistry(builtin.Resources()...)
	namespaces := resources.Get(namespacesGVR).Prefix("")
	f := &fixture{storage: storage}
	reg := registry.New(resources, registrytest.AfterFirstList(storage, namespaces, func() { f.createNamespace(t, "team") }), registry.Options{})
	f.reg = reg
	run(t, reg, testCA)
	eventually(t, "default service account", f.serviceAccountExists(t, "team"))
	eventually(t, "root CA", f.rootCAInOrder(t, "team"))
}
