package registry_test

import (
	"context"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/registry"
)

// admitCall is what a resource's Admit hook was called with.
type admitCall struct {
	name, namespace string
	data            string
	oldData         string // "" on create
	ctxValue        any
}

// recordingHook records its calls and refuses objects labelled
// refuse=yes with a 403.
type recordingHook struct {
	mu    sync.Mutex
	calls []admitCall
}

type ctxKey struct{}

func (h *recordingHook) admit(ctx context.Context, obj, old runtime.Object) error {
	cm := obj.(*corev1.ConfigMap)
	c := admitCall{name: cm.Name, namespace: cm.Namespace, data: cm.Data["k"], ctxValue: ctx.Value(ctxKey{})}
	if old != nil {
		c.oldData = old.(*corev1.ConfigMap).Data["k"]
	}
	h.mu.Lock()
	h.calls = append(h.calls, c)
	h.mu.Unlock()
	if cm.Labels["refuse"] == "yes" {
		return apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, cm.Name, context.Canceled)
	}
	return nil
}

func (h *recordingHook) last(t *testing.T) admitCall {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.calls) == 0 {
		t.Fatal("the Admit hook was not called")
	}
	return h.calls[len(h.calls)-1]
}

func (h *recordingHook) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.calls)
}

func TestAdmitHookOnEveryWrite(t *testing.T) {
	f := newFixture(t)
	h := &recordingHook{}
	f.res.Get(configMapsGVR).Admit = h.admit
	s := f.configMaps(t)
	ctx := context.WithValue(testContext(t), ctxKey{}, "request")

	if _, err := s.Create(ctx, metav1.NamespaceDefault, configMap("a", "k", "v1"), registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if c := h.last(t); c != (admitCall{name: "a", namespace: "default", data: "v1", ctxValue: "request"}) {
		t.Errorf("create: %+v", c)
	}
	if _, err := s.Update(ctx, metav1.NamespaceDefault, "a", configMap("a", "k", "v2"), registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if c := h.last(t); c.data != "v2" || c.oldData != "v1" || c.namespace != "default" {
		t.Errorf("update: %+v", c)
	}
	if _, err := s.Patch(ctx, metav1.NamespaceDefault, "a", types.MergePatchType, []byte(`{"data":{"k":"v3"}}`), registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if c := h.last(t); c.data != "v3" || c.oldData != "v2" {
		t.Errorf("patch: %+v", c)
	}
	apply := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"data":{"k":"a1"}}`)
	if _, err := s.Patch(ctx, metav1.NamespaceDefault, "b", types.ApplyPatchType, apply, registry.WriteOptions{FieldManager: "m", Manager: "m"}); err != nil {
		t.Fatal(err)
	}
	if c := h.last(t); c.name != "b" || c.data != "a1" || c.oldData != "" {
		t.Errorf("apply create: %+v", c)
	}
	apply = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"data":{"k":"a2"}}`)
	if _, err := s.Patch(ctx, metav1.NamespaceDefault, "b", types.ApplyPatchType, apply, registry.WriteOptions{FieldManager: "m", Manager: "m"}); err != nil {
		t.Fatal(err)
	}
	if c := h.last(t); c.data != "a2" || c.oldData != "a1" {
		t.Errorf("apply update: %+v", c)
	}
	n := h.count()
	if _, err := s.Create(ctx, metav1.NamespaceDefault, configMap("dry", "k", "d"), registry.WriteOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, metav1.NamespaceDefault, "a", configMap("a", "k", "d"), registry.WriteOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if got := h.count(); got != n+2 {
		t.Errorf("dry runs: %d calls, want 2", got-n)
	}
}

func TestAdmitHookRefusal(t *testing.T) {
	f := newFixture(t)
	h := &recordingHook{}
	f.res.Get(configMapsGVR).Admit = h.admit
	s := f.configMaps(t)
	ctx := testContext(t)

	_, err := s.Create(ctx, metav1.NamespaceDefault, withLabels(configMap("no", "k", "v"), "refuse", "yes"), registry.WriteOptions{})
	wantStatus(t, err, 403, metav1.StatusReasonForbidden)
	if getConfigMap(t, s, "no") != nil {
		t.Error("a refused create was stored")
	}

	createConfigMap(t, s, configMap("a", "k", "v1"))
	_, err = s.Update(ctx, metav1.NamespaceDefault, "a", withLabels(configMap("a", "k", "v2"), "refuse", "yes"), registry.WriteOptions{})
	wantStatus(t, err, 403, metav1.StatusReasonForbidden)
	_, err = s.Patch(ctx, metav1.NamespaceDefault, "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"refuse":"yes"}}}`), registry.WriteOptions{})
	wantStatus(t, err, 403, metav1.StatusReasonForbidden)
	if cm := getConfigMap(t, s, "a"); cm.Data["k"] != "v1" || cm.Labels["refuse"] != "" {
		t.Errorf("a refused update was stored: %+v", cm)
	}

	// Validation comes first: an invalid object never reaches the hook.
	n := h.count()
	_, err = s.Create(ctx, metav1.NamespaceDefault, configMap("Not Valid", "k", "v"), registry.WriteOptions{})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid)
	if h.count() != n {
		t.Error("the hook saw an invalid object")
	}
}
