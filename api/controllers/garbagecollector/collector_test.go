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

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
)

// newTestCollector returns a collector over an in-memory store holding
// nothing yet, and that store.
func newTestCollector(t testing.TB) (*Collector, *registrytest.Storage) {
	t.Helper()
	reg, storage := registrytest.NewRegistry(t, registry.Options{})
	return New(reg, slog.New(slog.NewTextHandler(io.Discard, nil))), storage
}

// newStoreCollector returns a collector of the built-in resources over
// store, a real raftstore node.
func newStoreCollector(store *raftstore.Store) *Collector {
	reg := registry.New(resource.NewRegistry(builtin.Resources()...), registry.FromRaftstore(store), registry.Options{})
	return New(reg, slog.New(slog.DiscardHandler))
}

// putConfigMap stores a configmap of namespace default as a client's
// create would have.
func putConfigMap(t *testing.T, s registry.Storage, name, uid string, owners ...metav1.OwnerReference) {
	t.Helper()
	createConfigMap(t, s, metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(uid), OwnerReferences: owners})
}

// putMarker stores configmap name of namespace default with a finalizer
// of its own: a candidate (it mentions finalizers) that gives the
// collector no work. A feed that holds it has read every change before
// it.
func putMarker(t *testing.T, s registry.Storage, name string) {
	t.Helper()
	createConfigMap(t, s, metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name + "-uid"), Finalizers: []string{"example.com/keep"}})
}

// createConfigMap stores a configmap with metadata md as a client's
// create would have.
func createConfigMap(t *testing.T, s registry.Storage, md metav1.ObjectMeta) {
	t.Helper()
	cm := corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, ObjectMeta: md}
	data, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(context.Background(), "/registry/core/configmaps/default/"+md.Name, data); err != nil {
		t.Fatal(err)
	}
}

// isCandidate reports whether configmap name of namespace default is
// among f's candidates.
func isCandidate(f *gcFeed, name string) bool {
	return slices.Contains(f.cands.sorted(), "/registry/core/configmaps/default/"+name)
}

// TestChangesAfterAnEmptyFirstPass: a leader whose first pass ran before
// anything was applied must see the changes that follow through its feed
// at a later tick, not only at the next resync.
func TestChangesAfterAnEmptyFirstPass(t *testing.T) {
	gc, storage := newTestCollector(t)
	ctx := context.Background()
	var l gcLoop
	defer l.stopFeed()
	gc.tick(ctx, &l)
	if l.feed == nil || l.last.IsZero() {
		t.Fatalf("first tick on an empty store: loop %+v, want a feed and a pass", l)
	}
	putConfigMap(t, storage, "owner", "owner-uid")
	putConfigMap(t, storage, "dep", "dep-uid", ownerRef("owner"))
	if _, err := storage.Delete(ctx, "/registry/core/configmaps/default/owner", registry.Preconditions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the dependent of a deleted owner collected", func() bool {
		gc.tick(ctx, &l)
		_, err := storage.Get(ctx, "/registry/core/configmaps/default/dep", registry.ReadOptions{})
		return registry.IsNotFound(err)
	})
}

// TestFeedMarksOnlyRelevantChanges: changes that cannot give the
// collector work (objects without owner references or propagation
// finalizers, that own nothing) ask for no pass; one that can asks for
// one.
func TestFeedMarksOnlyRelevantChanges(t *testing.T) {
	gc, storage := newTestCollector(t)
	ctx := context.Background()
	var l gcLoop
	defer l.stopFeed()
	gc.tick(ctx, &l)
	putConfigMap(t, storage, "plain", "plain-uid")
	putConfigMap(t, storage, "owner", "owner-uid")
	putMarker(t, storage, "marker")
	waitFor(t, "the feed to read the plain changes", func() bool { return isCandidate(l.feed, "marker") })
	if l.feed.take() {
		t.Fatal("changes that cannot give the collector work asked for a pass")
	}
	putConfigMap(t, storage, "dep", "dep-uid", ownerRef("owner"))
	waitFor(t, "the feed to ask for a pass after an owned object's create", l.feed.take)
}

// waitFor polls cond until it holds, failing the test after a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
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
	putConfigMap(t, storage, "plain", "plain-uid")
	putConfigMap(t, storage, "owner", "owner-uid")
	putConfigMap(t, storage, "dep", "dep-uid", ownerRef("owner"))
	putConfigMap(t, storage, "orphan", "orphan-uid", ownerRef("missing"))
	g, err := gc.snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := graphNames(g)
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

// TestCandidatesHoldWhatAFullPassWould: once a full pass has filled the
// candidates, the feed keeps them so that a pass over them holds the
// same objects as a full pass would, as objects gain and lose owner
// references and finalizers and are deleted.
func TestCandidatesHoldWhatAFullPassWould(t *testing.T) {
	gc, storage := newTestCollector(t)
	ctx := context.Background()
	putConfigMap(t, storage, "plain", "plain-uid")
	putConfigMap(t, storage, "owner", "owner-uid")
	putConfigMap(t, storage, "dep", "dep-uid", ownerRef("owner"))
	putConfigMap(t, storage, "gone", "gone-uid", ownerRef("owner"))
	var l gcLoop
	defer l.stopFeed()
	gc.tick(ctx, &l) // the full pass
	if got := l.feed.cands.sorted(); len(got) != 2 {
		t.Fatalf("candidates after the full pass: %v, want dep and gone", got)
	}
	putConfigMap(t, storage, "late", "late-uid", ownerRef("owner"))
	setOwners(t, storage, "plain", ownerRef("owner"))
	setOwners(t, storage, "dep")
	if _, err := storage.Delete(ctx, "/registry/core/configmaps/default/gone", registry.Preconditions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the feed to read the changes", func() bool { return !isCandidate(l.feed, "gone") })
	full, err := gc.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	light, err := gc.snapshotOf(ctx, l.feed.cands.sorted())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := graphNames(light), graphNames(full); !slices.Equal(got, want) {
		t.Fatalf("graph over the candidates: %v, full graph: %v", got, want)
	}
	if want := []string{"late", "owner", "plain"}; !slices.Equal(graphNames(full), want) {
		t.Fatalf("full graph %v, want %v", graphNames(full), want)
	}
}

// setOwners replaces the owner references of configmap name of namespace
// default.
func setOwners(t *testing.T, s registry.Storage, name string, owners ...metav1.OwnerReference) {
	t.Helper()
	key := "/registry/core/configmaps/default/" + name
	o, err := s.Get(context.Background(), key, registry.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal(o.Data, &cm); err != nil {
		t.Fatal(err)
	}
	cm.OwnerReferences = owners
	data, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(context.Background(), key, data, registry.Preconditions{}); err != nil {
		t.Fatal(err)
	}
}

// ownerRef is a reference to configmap name of namespace default, whose
// uid is name-uid.
func ownerRef(name string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: types.UID(name + "-uid")}
}

// graphNames returns the names of g's objects, sorted.
func graphNames(g *gcGraph) []string {
	var out []string
	for _, n := range g.nodes {
		out = append(out, n.meta.Name)
	}
	slices.Sort(out)
	return out
}
