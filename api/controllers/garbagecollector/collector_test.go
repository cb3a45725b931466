package garbagecollector

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
)

// newTestCollector returns a collector over an in-memory store holding
// nothing yet, and that store.
func newTestCollector(t testing.TB) (*Collector, *registrytest.Storage) {
	t.Helper()
	reg, storage := registrytest.NewRegistry(t, registry.Options{})
	return New(reg, slog.New(slog.NewTextHandler(io.Discard, nil))), storage
}

// putConfigMap stores a configmap of namespace default as a client's
// create would have.
func putConfigMap(t *testing.T, s registry.Storage, name, uid string, owners ...metav1.OwnerReference) {
	t.Helper()
	cm := corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(uid), OwnerReferences: owners}}
	data, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(context.Background(), "/registry/core/configmaps/default/"+name, data); err != nil {
		t.Fatal(err)
	}
}

// TestChangesAfterAnEmptyFirstPass: a leader whose first pass ran before
// anything was applied (revision 0) must still see the changes that
// follow at its next tick, not only at the next resync. A store watch
// from revision 0 starts from now, so those changes cannot be read that
// way.
func TestChangesAfterAnEmptyFirstPass(t *testing.T) {
	gc, storage := newTestCollector(t)
	ctx := context.Background()
	var l gcLoop
	gc.tick(ctx, &l)
	if l.seen != 0 || !l.leader {
		t.Fatalf("first tick on an empty store: loop %+v, want leader at revision 0", l)
	}
	putConfigMap(t, storage, "owner", "owner-uid")
	putConfigMap(t, storage, "dep", "dep-uid", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "owner-uid"})
	if _, err := storage.Delete(ctx, "/registry/core/configmaps/default/owner", registry.Preconditions{}); err != nil {
		t.Fatal(err)
	}
	gc.tick(ctx, &l)
	_, err := storage.Get(ctx, "/registry/core/configmaps/default/dep", registry.ReadOptions{})
	if !registry.IsNotFound(err) {
		t.Fatalf("dependent of a deleted owner after the next tick: %v, want it collected", err)
	}
}

// Passes no change asked for come every gcResync while passes are quick,
// and take at most gcResyncShare of the leader's time when they are slow.
func TestResyncAfter(t *testing.T) {
	for _, c := range []struct{ took, want time.Duration }{
		{0, gcResync},
		{50 * time.Millisecond, gcResync},
		{gcResync / 20, gcResync},
		{4 * time.Second, 80 * time.Second},
		{10 * time.Second, 200 * time.Second},
	} {
		if got := resyncAfter(c.took); got != c.want {
			t.Errorf("resyncAfter(%v) = %v, want %v", c.took, got, c.want)
		}
	}
}

// TestSnapshotDecodesWhatMatters: a pass's snapshot holds the objects with
// owner references or finalizers and the owners they name, read by key,
// and leaves every other object out.
func TestSnapshotDecodesWhatMatters(t *testing.T) {
	gc, storage := newTestCollector(t)
	ref := func(name string) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: types.UID(name + "-uid")}
	}
	putConfigMap(t, storage, "plain", "plain-uid")
	putConfigMap(t, storage, "owner", "owner-uid")
	putConfigMap(t, storage, "dep", "dep-uid", ref("owner"))
	putConfigMap(t, storage, "orphan", "orphan-uid", ref("missing"))
	g, err := gc.snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range g.nodes {
		got = append(got, n.meta.Name)
	}
	slices.Sort(got)
	if want := []string{"dep", "orphan", "owner"}; !slices.Equal(got, want) {
		t.Fatalf("snapshot holds %v, want %v", got, want)
	}
	if o := g.byUID["owner-uid"]; o == nil || o.key != "/registry/core/configmaps/default/owner" {
		t.Fatalf("owner by uid: %v", o)
	}
	if deps := g.dependentsOf(g.byUID["owner-uid"]); len(deps) != 1 || deps[0].meta.Name != "dep" {
		t.Fatalf("dependents of owner: %v", deps)
	}
}
