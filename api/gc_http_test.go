package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// holdFinalizer keeps an object being deleted until a test removes it.
const holdFinalizer = "example.com/hold"

// ownerRef returns a reference to the configmap owner; block sets
// blockOwnerDeletion.
func ownerRef(owner *corev1.ConfigMap, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, BlockOwnerDeletion: &block}
}

// createOwned creates configmap name in ns with the given owner
// references and finalizers.
func createOwned(t testing.TB, s *testServer, ns, name string, refs []metav1.OwnerReference, finalizers ...string) *corev1.ConfigMap {
	t.Helper()
	cm := configMap(name, nil, nil)
	cm.OwnerReferences = refs
	cm.Finalizers = finalizers
	return createCM(t, s, ns, cm)
}

// refs lists owner references.
func refs(r ...metav1.OwnerReference) []metav1.OwnerReference { return r }

// deleteWith deletes configmap ns/name with a propagation policy ("" for
// none) and extra query pairs.
func deleteWith(t testing.TB, s *testServer, ns, name string, policy metav1.DeletionPropagation, kv ...string) *response {
	t.Helper()
	if policy != "" {
		kv = append(kv, "propagationPolicy", string(policy))
	}
	return s.do(t, http.MethodDelete, cmPath(ns, name)+query(kv...), nil)
}

// exists reports whether configmap ns/name exists.
func exists(t testing.TB, s *testServer, ns, name string) bool {
	t.Helper()
	return s.do(t, http.MethodGet, cmPath(ns, name), nil).Code == http.StatusOK
}

// release removes every finalizer of configmap ns/name.
func release(t testing.TB, s *testServer, ns, name string) {
	t.Helper()
	patchCM(t, s, ns, name, mergePatch, `{"metadata":{"finalizers":null}}`)
}

// waitCollected waits until the collector has made a pass that saw every
// object existing now: it creates a dependent of an owner that never
// existed and waits for the collector to delete it.
func waitCollected(t testing.TB, s *testServer, ns string) {
	t.Helper()
	ghost := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ghost", UID: "no-such-uid"}}
	createOwned(t, s, ns, "canary", refs(ownerRef(ghost, false)))
	wantGone(t, s, cmPath(ns, "canary"))
}

// wantBeingDeleted checks that a DELETE answered 200 with the object,
// marked for deletion with exactly the given finalizers.
func wantBeingDeleted(t testing.TB, r *response, code int, finalizers ...string) *corev1.ConfigMap {
	t.Helper()
	var got corev1.ConfigMap
	r.wantCode(t, code).decode(t, &got)
	if got.Kind != "ConfigMap" || got.DeletionTimestamp == nil {
		t.Fatalf("%s answered kind %q deletionTimestamp %v, want the object being deleted", r.what, got.Kind, got.DeletionTimestamp)
	}
	if g := got.DeletionGracePeriodSeconds; g == nil || *g != 0 {
		t.Errorf("%s: deletionGracePeriodSeconds %v, want 0", r.what, g)
	}
	if !slices.Equal(got.Finalizers, finalizers) {
		t.Errorf("%s: finalizers %v, want %v", r.what, got.Finalizers, finalizers)
	}
	return &got
}

// TestGCDeleteFinalizers checks that the propagation policy of a DELETE
// decides the garbage-collection finalizers as kube-apiserver's store
// does, on an object held by a finalizer of its own.
func TestGCDeleteFinalizers(t *testing.T) {
	t.Parallel()
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	for _, c := range []struct {
		name string
		kv   []string
		code int
		want []string
	}{
		{"Default", nil, http.StatusOK, []string{holdFinalizer}},
		{"Background", []string{"propagationPolicy", "Background"}, http.StatusOK, []string{holdFinalizer}},
		{"Foreground", []string{"propagationPolicy", "Foreground"}, http.StatusOK, []string{holdFinalizer, metav1.FinalizerDeleteDependents}},
		{"Orphan", []string{"propagationPolicy", "Orphan"}, http.StatusOK, []string{holdFinalizer, metav1.FinalizerOrphanDependents}},
		{"OrphanDependentsTrue", []string{"orphanDependents", "true"}, http.StatusOK, []string{holdFinalizer, metav1.FinalizerOrphanDependents}},
		{"OrphanDependentsFalse", []string{"orphanDependents", "false"}, http.StatusAccepted, []string{holdFinalizer}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "f-" + strings.ToLower(c.name)
			createOwned(t, s, ns, name, nil, holdFinalizer)
			r := s.do(t, http.MethodDelete, cmPath(ns, name)+query(c.kv...), nil)
			wantBeingDeleted(t, r, c.code, c.want...)
		})
	}

	t.Run("SecondDeleteSwitchesPolicy", func(t *testing.T) {
		createOwned(t, s, ns, "switch", nil, holdFinalizer)
		first := wantBeingDeleted(t, deleteWith(t, s, ns, "switch", metav1.DeletePropagationForeground), http.StatusOK, holdFinalizer, metav1.FinalizerDeleteDependents)
		second := wantBeingDeleted(t, deleteWith(t, s, ns, "switch", metav1.DeletePropagationOrphan), http.StatusOK, holdFinalizer, metav1.FinalizerOrphanDependents)
		if !second.DeletionTimestamp.Equal(first.DeletionTimestamp) {
			t.Errorf("second delete moved deletionTimestamp from %v to %v", first.DeletionTimestamp, second.DeletionTimestamp)
		}
		// The collector may remove the orphan finalizer meanwhile (there
		// are no dependents), so only the hold finalizer is certain.
		var third corev1.ConfigMap
		deleteWith(t, s, ns, "switch", "").wantCode(t, http.StatusOK).decode(t, &third)
		if !third.DeletionTimestamp.Equal(first.DeletionTimestamp) || !slices.Contains(third.Finalizers, holdFinalizer) {
			t.Errorf("third delete: deletionTimestamp %v (first %v), finalizers %v", third.DeletionTimestamp, first.DeletionTimestamp, third.Finalizers)
		}
	})

	t.Run("BothOptionsInvalid", func(t *testing.T) {
		createOwned(t, s, ns, "both", nil)
		body := map[string]any{"orphanDependents": true, "propagationPolicy": "Orphan"}
		st := s.do(t, http.MethodDelete, cmPath(ns, "both"), body).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "propagationPolicy")
	})
}

// TestGCBackground checks that dependents of an owner deleted in the
// background, of any resource, are deleted once the owner is gone.
func TestGCBackground(t *testing.T) {
	t.Parallel()
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	owner := createCM(t, s, ns, configMap("owner", nil, nil))
	createOwned(t, s, ns, "dep-a", refs(ownerRef(owner, false)))
	createOwned(t, s, ns, "dep-b", refs(ownerRef(owner, true)))
	sec := corev1.Secret{TypeMeta: metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "dep-secret", OwnerReferences: refs(ownerRef(owner, false))}}
	secPath := "/api/v1/namespaces/" + ns + "/secrets/dep-secret"
	s.do(t, http.MethodPost, "/api/v1/namespaces/"+ns+"/secrets", sec).wantCode(t, http.StatusCreated)

	var st metav1.Status
	deleteWith(t, s, ns, "owner", metav1.DeletePropagationBackground).wantCode(t, http.StatusOK).decode(t, &st)
	if st.Kind != "Status" || st.Status != metav1.StatusSuccess {
		t.Fatalf("background delete answered %+v, want a Success Status", st)
	}
	wantGone(t, s, cmPath(ns, "dep-a"))
	wantGone(t, s, cmPath(ns, "dep-b"))
	wantGone(t, s, secPath)
}

// TestGCForeground checks a foreground delete: the owner stays, with the
// foregroundDeletion finalizer, while a dependent with blockOwnerDeletion
// exists; its dependents are deleted; a dependent with another, solid
// owner only loses the reference; then the owner goes.
func TestGCForeground(t *testing.T) {
	t.Parallel()
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	owner := createCM(t, s, ns, configMap("owner", nil, nil))
	other := createCM(t, s, ns, configMap("other", nil, nil))
	createOwned(t, s, ns, "blocker", refs(ownerRef(owner, true)), holdFinalizer)
	createOwned(t, s, ns, "free", refs(ownerRef(owner, false)))
	createOwned(t, s, ns, "shared", refs(ownerRef(owner, true), ownerRef(other, false)))

	wantBeingDeleted(t, deleteWith(t, s, ns, "owner", metav1.DeletePropagationForeground), http.StatusOK, metav1.FinalizerDeleteDependents)
	wantGone(t, s, cmPath(ns, "free"))
	waitFor(t, "the blocking dependent to be deleted", func() bool {
		return getCM(t, s, ns, "blocker", "").DeletionTimestamp != nil
	})
	waitFor(t, "the shared dependent to lose its reference to the owner", func() bool {
		got := getCM(t, s, ns, "shared", "")
		return len(got.OwnerReferences) == 1 && got.OwnerReferences[0].UID == other.UID
	})
	waitCollected(t, s, ns)
	if got := getCM(t, s, ns, "owner", ""); !slices.Contains(got.Finalizers, metav1.FinalizerDeleteDependents) {
		t.Fatalf("owner with a blocking dependent left: finalizers %v", got.Finalizers)
	}
	release(t, s, ns, "blocker")
	wantGone(t, s, cmPath(ns, "blocker"))
	wantGone(t, s, cmPath(ns, "owner"))
	if !exists(t, s, ns, "shared") || !exists(t, s, ns, "other") {
		t.Errorf("the dependent with a solid owner, or that owner, was deleted")
	}
}

// TestGCForegroundChain checks a foreground delete of a chain of three
// owners A ← B ← C: B is deleted in foreground too, and they go C, B, A.
func TestGCForegroundChain(t *testing.T) {
	t.Parallel()
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	a := createCM(t, s, ns, configMap("a", nil, nil))
	b := createOwned(t, s, ns, "b", refs(ownerRef(a, true)))
	createOwned(t, s, ns, "c", refs(ownerRef(b, true)), holdFinalizer)
	w := watch(t, s, watchPath(ns, "resourceVersion", getCM(t, s, ns, "c", "").ResourceVersion))

	wantBeingDeleted(t, deleteWith(t, s, ns, "a", metav1.DeletePropagationForeground), http.StatusOK, metav1.FinalizerDeleteDependents)
	waitFor(t, "b to be deleted in foreground", func() bool {
		got := getCM(t, s, ns, "b", "")
		return got.DeletionTimestamp != nil && slices.Contains(got.Finalizers, metav1.FinalizerDeleteDependents)
	})
	waitFor(t, "c to be deleted", func() bool { return getCM(t, s, ns, "c", "").DeletionTimestamp != nil })
	waitCollected(t, s, ns)
	if !exists(t, s, ns, "a") || !exists(t, s, ns, "b") {
		t.Fatalf("an owner went while its blocking dependent c is held")
	}
	release(t, s, ns, "c")
	wantGone(t, s, cmPath(ns, "a"))

	var order []string
	for len(order) < 3 {
		ev := w.nextNonBookmark(t)
		if name := ev.cm(t).Name; ev.Type == "DELETED" && name != "canary" {
			order = append(order, name)
		}
	}
	if !slices.Equal(order, []string{"c", "b", "a"}) {
		t.Errorf("deletion order %v, want [c b a]", order)
	}
}

// TestGCOrphan checks an orphan delete: the owner goes once the
// references to it are removed from its dependents, which stay.
func TestGCOrphan(t *testing.T) {
	t.Parallel()
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	owner := createCM(t, s, ns, configMap("owner", nil, nil))
	other := createCM(t, s, ns, configMap("other", nil, nil))
	createOwned(t, s, ns, "dep-a", refs(ownerRef(owner, true)))
	createOwned(t, s, ns, "dep-b", refs(ownerRef(owner, false), ownerRef(other, false)))

	wantBeingDeleted(t, deleteWith(t, s, ns, "owner", metav1.DeletePropagationOrphan), http.StatusOK, metav1.FinalizerOrphanDependents)
	wantGone(t, s, cmPath(ns, "owner"))
	if got := getCM(t, s, ns, "dep-a", ""); len(got.OwnerReferences) != 0 {
		t.Errorf("orphaned dep-a still has owner references %v", got.OwnerReferences)
	}
	if got := getCM(t, s, ns, "dep-b", ""); len(got.OwnerReferences) != 1 || got.OwnerReferences[0].UID != other.UID {
		t.Errorf("orphaned dep-b has owner references %v, want only the other owner", got.OwnerReferences)
	}
	waitCollected(t, s, ns)
	if !exists(t, s, ns, "dep-a") || !exists(t, s, ns, "dep-b") {
		t.Errorf("an orphaned dependent was deleted")
	}
}

// TestGCOwnerIdentity checks that owners are matched by uid: a dependent
// of an owner deleted and recreated under the same name is collected,
// one whose owner exists is never deleted, one with some owners gone only
// loses those references, and one naming a kind not served is left alone.
func TestGCOwnerIdentity(t *testing.T) {
	t.Parallel()
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	first := createCM(t, s, ns, configMap("owner", nil, nil))
	deleteCM(t, s, ns, "owner")
	second := createCM(t, s, ns, configMap("owner", nil, nil))
	gone := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "gone", UID: types.UID("gone-uid")}}
	widget := metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "widget-uid"}

	createOwned(t, s, ns, "of-first", refs(ownerRef(first, false)))
	createOwned(t, s, ns, "of-second", refs(ownerRef(second, true)))
	createOwned(t, s, ns, "mixed", refs(ownerRef(second, false), ownerRef(gone, false)))
	createOwned(t, s, ns, "all-gone", refs(ownerRef(first, false), ownerRef(gone, false)))
	createOwned(t, s, ns, "unserved", refs(widget))

	wantGone(t, s, cmPath(ns, "of-first"))
	wantGone(t, s, cmPath(ns, "all-gone"))
	waitFor(t, "the reference to the absent owner to be removed", func() bool {
		return len(getCM(t, s, ns, "mixed", "").OwnerReferences) == 1
	})
	waitCollected(t, s, ns)
	if got := getCM(t, s, ns, "mixed", ""); got.OwnerReferences[0].UID != second.UID {
		t.Errorf("mixed kept %v, want the reference to the present owner", got.OwnerReferences)
	}
	if !exists(t, s, ns, "of-second") {
		t.Errorf("a dependent whose owner exists was deleted")
	}
	if got := getCM(t, s, ns, "unserved", ""); len(got.OwnerReferences) != 1 {
		t.Errorf("a dependent of a kind not served was changed: %v", got.OwnerReferences)
	}
}

// TestGCDryRun checks that a dry-run delete with a propagation policy
// answers as the real one would and leaves no trace.
func TestGCDryRun(t *testing.T) {
	t.Parallel()
	s := newTestCluster(t, 1).Leader
	ns := newNamespace(t, s)
	owner := createCM(t, s, ns, configMap("owner", nil, nil))
	dep := createOwned(t, s, ns, "dep", refs(ownerRef(owner, true)))
	for _, p := range []metav1.DeletionPropagation{metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan} {
		fin := metav1.FinalizerDeleteDependents
		if p == metav1.DeletePropagationOrphan {
			fin = metav1.FinalizerOrphanDependents
		}
		wantBeingDeleted(t, deleteWith(t, s, ns, "owner", p, "dryRun", "All"), http.StatusOK, fin)
	}
	deleteWith(t, s, ns, "owner", metav1.DeletePropagationBackground, "dryRun", "All").wantCode(t, http.StatusOK)
	waitCollected(t, s, ns)
	if got := getCM(t, s, ns, "owner", ""); got.ResourceVersion != owner.ResourceVersion || got.DeletionTimestamp != nil || len(got.Finalizers) > 0 {
		t.Errorf("after dry-run deletes the owner is %+v", got.ObjectMeta)
	}
	if got := getCM(t, s, ns, "dep", ""); got.ResourceVersion != dep.ResourceVersion {
		t.Errorf("after dry-run deletes the dependent changed: rv %s, was %s", got.ResourceVersion, dep.ResourceVersion)
	}
}

// TestGCLeaderChange checks that collection started by one leader is
// finished by the next: the leader is stopped while a foreground delete
// waits for a held dependent and while the dependents of an owner
// deleted in the background are being deleted.
func TestGCLeaderChange(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 3, func(cfg *raftstore.Config) { cfg.WaitTimeout = waitTimeout })
	servers := make([]*testServer, len(c.Nodes))
	for i := range c.Nodes {
		servers[i] = serve(t, c, i)
	}
	leader := c.WaitForLeader()
	s := servers[leader]
	waitFor(t, "system namespaces", func() bool {
		return s.do(t, http.MethodGet, "/api/v1/namespaces/default", nil).Code == http.StatusOK
	})
	ns := newNamespace(t, s)
	fg := createCM(t, s, ns, configMap("fg", nil, nil))
	createOwned(t, s, ns, "held", refs(ownerRef(fg, true)), holdFinalizer)
	bg := createCM(t, s, ns, configMap("bg", nil, nil))
	const n = 60
	for i := range n {
		createOwned(t, s, ns, depName(i), refs(ownerRef(bg, false)))
	}
	wantBeingDeleted(t, deleteWith(t, s, ns, "fg", metav1.DeletePropagationForeground), http.StatusOK, metav1.FinalizerDeleteDependents)
	waitFor(t, "the held dependent to be deleted", func() bool { return getCM(t, s, ns, "held", "").DeletionTimestamp != nil })
	deleteWith(t, s, ns, "bg", "").wantCode(t, http.StatusOK)
	wantGone(t, s, cmPath(ns, depName(0))) // the collector has started on them

	c.Stop(leader)
	next := c.WaitForLeader()
	s = servers[next]
	t.Logf("leader %s stopped, %s leads", c.Nodes[leader].Name, c.Nodes[next].Name)
	for i := range n {
		wantGone(t, s, cmPath(ns, depName(i)))
	}
	if !exists(t, s, ns, "fg") {
		t.Fatalf("the foreground owner went while its blocking dependent is held")
	}
	release(t, s, ns, "held")
	wantGone(t, s, cmPath(ns, "held"))
	wantGone(t, s, cmPath(ns, "fg"))
}

// depName names the i-th dependent.
func depName(i int) string { return "dep-" + string(rune('a'+i/26)) + string(rune('a'+i%26)) }
