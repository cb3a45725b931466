package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

// deadline bounds every wait of a test: nothing here sleeps, and a test
// that waits this long has failed.
const deadline = 10 * time.Second

// now is the registry's clock in every test.
var now = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

var (
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	leasesGVR     = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
)

// fixture is a registry of the built-in resources over an in-memory
// store, with the "default" namespace created.
type fixture struct {
	reg     *registry.Registry
	storage *registrytest.Storage
	res     *resource.Registry
	// nsDeleting counts the calls of Options.NamespaceDeleting.
	nsDeleting atomic.Int64
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{}
	f.reg, f.storage = registrytest.NewRegistry(t, registry.Options{
		Now:               func() time.Time { return now },
		NamespaceDeleting: func() { f.nsDeleting.Add(1) },
	})
	f.res = f.reg.Resources()
	if err := f.reg.EnsureNamespace(testContext(t), metav1.NamespaceDefault); err != nil {
		t.Fatalf("EnsureNamespace(default): %v", err)
	}
	return f
}

// store returns the verbs of the resource gvr.
func (f *fixture) store(t *testing.T, gvr schema.GroupVersionResource) *registry.Store {
	t.Helper()
	res := f.res.Get(gvr)
	if res == nil {
		t.Fatalf("no resource %v", gvr)
	}
	return f.reg.Store(res)
}

func (f *fixture) configMaps(t *testing.T) *registry.Store {
	t.Helper()
	return f.store(t, configMapsGVR)
}

// namespace creates namespace name through the namespaces store.
func (f *fixture) namespace(t *testing.T, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := f.store(t, namespacesGVR).Create(testContext(t), "", ns, registry.WriteOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	t.Cleanup(cancel)
	return ctx
}

// configMap returns a configmap named name with data kv (key, value,
// key, value...).
func configMap(name string, kv ...string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
	}
	if len(kv) > 0 {
		cm.Data = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		cm.Data[kv[i]] = kv[i+1]
	}
	return cm
}

// withLabels sets the labels of cm (key, value, ...) and returns it.
func withLabels(cm *corev1.ConfigMap, kv ...string) *corev1.ConfigMap {
	cm.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		cm.Labels[kv[i]] = kv[i+1]
	}
	return cm
}

// withFinalizers sets the finalizers of cm and returns it.
func withFinalizers(cm *corev1.ConfigMap, finalizers ...string) *corev1.ConfigMap {
	cm.Finalizers = finalizers
	return cm
}

// createConfigMap creates cm in namespace default and returns it as stored.
func createConfigMap(t *testing.T, s *registry.Store, cm *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	r, err := s.Create(testContext(t), metav1.NamespaceDefault, cm, registry.WriteOptions{Manager: "test"})
	if err != nil {
		t.Fatalf("create configmap %s: %v", cm.Name, err)
	}
	return decode[corev1.ConfigMap](t, r.Data)
}

// getConfigMap reads default/name; nil when it does not exist.
func getConfigMap(t *testing.T, s *registry.Store, name string) *corev1.ConfigMap {
	t.Helper()
	o, err := s.Get(testContext(t), metav1.NamespaceDefault, name, registry.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("get configmap %s: %v", name, err)
	}
	return decode[corev1.ConfigMap](t, o.Data)
}

// decode unmarshals the JSON of a stored or returned object.
func decode[T any](t *testing.T, data []byte) *T {
	t.Helper()
	v := new(T)
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

// rv returns the resourceVersion of m as a number.
func rv(t *testing.T, m metav1.Object) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q of %s: %v", m.GetResourceVersion(), m.GetName(), err)
	}
	return n
}

// names returns the metadata.name of each object, in order.
func names(t *testing.T, objs []registry.Object) []string {
	t.Helper()
	out := []string{}
	for _, o := range objs {
		out = append(out, decode[metav1.PartialObjectMetadata](t, o.Data).Name)
	}
	return out
}

// wantStatus fails the test unless err is a StatusError with code and
// reason, and returns it.
func wantStatus(t *testing.T, err error, code int32, reason metav1.StatusReason) *apierrors.StatusError {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want a StatusError %d %s", err, err, code, reason)
	}
	if st := se.ErrStatus; st.Code != code || st.Reason != reason {
		t.Fatalf("status %d %s (%q), want %d %s", st.Code, st.Reason, st.Message, code, reason)
	}
	return se
}

// wantCause fails the test unless se has a cause of type typ on field.
func wantCause(t *testing.T, se *apierrors.StatusError, typ metav1.CauseType, field string) {
	t.Helper()
	var causes []metav1.StatusCause
	if d := se.ErrStatus.Details; d != nil {
		causes = d.Causes
	}
	if !slices.ContainsFunc(causes, func(c metav1.StatusCause) bool { return c.Type == typ && c.Field == field }) {
		t.Fatalf("causes %+v, want one of type %s on field %q", causes, typ, field)
	}
}

// managedEntry returns the managedFields entry of manager for operation
// op, or nil.
func managedEntry(m metav1.Object, manager string, op metav1.ManagedFieldsOperationType) *metav1.ManagedFieldsEntry {
	for _, e := range m.GetManagedFields() {
		if e.Manager == manager && e.Operation == op {
			return &e
		}
	}
	return nil
}

// wantManaged fails the test unless m has a managedFields entry of
// manager for op whose fields include each of paths (FieldsV1 JSON
// fragments such as `"f:k1"`).
func wantManaged(t *testing.T, m metav1.Object, manager string, op metav1.ManagedFieldsOperationType, paths ...string) {
	t.Helper()
	e := managedEntry(m, manager, op)
	if e == nil || e.FieldsV1 == nil {
		t.Fatalf("managedFields %+v, want an %s entry of %q", m.GetManagedFields(), op, manager)
	}
	for _, p := range paths {
		if fields := e.FieldsV1.GetRawString(); !strings.Contains(fields, p) {
			t.Errorf("fields of %q (%s) = %s, want %s among them", manager, op, fields, p)
		}
	}
}

// nextEvent returns the next event of w, failing the test when none
// arrives within the deadline or the channel closes.
func nextEvent(t *testing.T, w registry.Watcher) registry.WatchEvent {
	t.Helper()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch channel closed, want an event")
		}
		return ev
	case <-timer.C:
		t.Fatalf("no watch event within %v", deadline)
	}
	return registry.WatchEvent{}
}
