package api_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// Patch media types.
const (
	jsonPatch      = "application/json-patch+json"
	mergePatch     = "application/merge-patch+json"
	strategicPatch = "application/strategic-merge-patch+json"
)

// patchCM patches a configmap through s with the given patch type,
// expecting 200, and returns the result.
func patchCM(t testing.TB, s *testServer, ns, name, typ, patch string) *corev1.ConfigMap {
	t.Helper()
	var out corev1.ConfigMap
	s.do(t, http.MethodPatch, cmPath(ns, name), patch, contentType(typ)).wantCode(t, http.StatusOK).decode(t, &out)
	return &out
}

// wantGone polls until GET path answers 404.
func wantGone(t testing.TB, s *testServer, path string) {
	t.Helper()
	waitFor(t, path+" to be gone", func() bool {
		return s.do(t, http.MethodGet, path, nil).Code == http.StatusNotFound
	})
}

// TestCreate checks POST: the server-set metadata and the errors of a
// create.
func TestCreate(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)

	t.Run("GenerateName", func(t *testing.T) {
		cm := configMap("", nil, map[string]string{"k": "v"})
		cm.GenerateName = "gen-"
		r := s.do(t, http.MethodPost, cmPath(ns), cm).wantCode(t, http.StatusCreated)
		var got corev1.ConfigMap
		r.decode(t, &got)
		if !strings.HasPrefix(got.Name, "gen-") || len(got.Name) <= len("gen-") {
			t.Errorf("generated name %q, want gen- and a suffix", got.Name)
		}
		if got.UID == "" || got.CreationTimestamp.IsZero() || got.ResourceVersion == "" || got.Namespace != ns {
			t.Errorf("created object lacks server metadata: uid %q creationTimestamp %v resourceVersion %q namespace %q",
				got.UID, got.CreationTimestamp, got.ResourceVersion, got.Namespace)
		}
		if got.Kind != "ConfigMap" || got.APIVersion != "v1" {
			t.Errorf("kind %q apiVersion %q", got.Kind, got.APIVersion)
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type %q", ct)
		}
		if g := getCM(t, s, ns, got.Name, ""); g.UID != got.UID {
			t.Errorf("stored uid %q, created %q", g.UID, got.UID)
		}
	})

	t.Run("AlreadyExists", func(t *testing.T) {
		createCM(t, s, ns, configMap("dup", nil, nil))
		st := s.do(t, http.MethodPost, cmPath(ns), configMap("dup", nil, nil)).wantStatus(t, http.StatusConflict, metav1.StatusReasonAlreadyExists)
		if st.Details == nil || st.Details.Name != "dup" || st.Details.Kind != "configmaps" {
			t.Errorf("details %+v, want name dup kind configmaps", st.Details)
		}
	})

	t.Run("MissingNamespace", func(t *testing.T) {
		st := s.do(t, http.MethodPost, cmPath("no-such-namespace"), configMap("x", nil, nil)).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
		if st.Details == nil || st.Details.Name != "no-such-namespace" || st.Details.Kind != "namespaces" {
			t.Errorf("details %+v, want name no-such-namespace kind namespaces", st.Details)
		}
	})

	t.Run("NamespaceMismatch", func(t *testing.T) {
		cm := configMap("mismatch", nil, nil)
		cm.Namespace = "elsewhere"
		s.do(t, http.MethodPost, cmPath(ns), cm).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	})

	t.Run("DryRunStoresNothing", func(t *testing.T) {
		s.do(t, http.MethodPost, cmPath(ns)+query("dryRun", "All"), configMap("dry", nil, nil)).wantCode(t, http.StatusCreated)
		s.do(t, http.MethodGet, cmPath(ns, "dry"), nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	})

	t.Run("Lease", func(t *testing.T) {
		holder := "me"
		l := coordinationv1.Lease{
			TypeMeta:   metav1.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "lock"},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder},
		}
		var got coordinationv1.Lease
		s.do(t, http.MethodPost, "/apis/coordination.k8s.io/v1/namespaces/"+ns+"/leases", l).wantCode(t, http.StatusCreated).decode(t, &got)
		if got.APIVersion != "coordination.k8s.io/v1" || got.Kind != "Lease" || got.Spec.HolderIdentity == nil || *got.Spec.HolderIdentity != "me" {
			t.Errorf("created lease %+v", got)
		}
	})
}

// TestCreateInMissingSystemNamespace checks that a create in a missing
// system namespace creates the namespace on the spot, with no controller
// running.
func TestCreateInMissingSystemNamespace(t *testing.T) {
	t.Parallel()
	c := storetest.NewCluster(t, 1)
	hs := httptest.NewServer(api.NewServer(c.Leader(), api.Options{}))
	t.Cleanup(hs.Close)
	s := &testServer{URL: hs.URL, Store: c.Leader()}
	s.do(t, http.MethodGet, "/api/v1/namespaces/kube-public", nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	createCM(t, s, "kube-public", configMap("cluster-info", nil, nil))
	var ns corev1.Namespace
	s.do(t, http.MethodGet, "/api/v1/namespaces/kube-public", nil).wantCode(t, http.StatusOK).decode(t, &ns)
	if ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("kube-public phase %q, want Active", ns.Status.Phase)
	}
	s.do(t, http.MethodPost, cmPath("not-a-system-namespace"), configMap("x", nil, nil)).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

// TestUpdate checks PUT: compare-and-swap on the body's resourceVersion,
// unconditional without one.
func TestUpdate(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	v1 := createCM(t, s, ns, configMap("a", nil, map[string]string{"k": "1"}))
	v2 := v1.DeepCopy()
	v2.Data["k"] = "2"
	v2 = updateCM(t, s, v2)
	if rvOfCM(v2) <= rvOfCM(v1) {
		t.Errorf("update rv %s not after %s", v2.ResourceVersion, v1.ResourceVersion)
	}

	t.Run("StaleResourceVersionIsConflict", func(t *testing.T) {
		stale := v1.DeepCopy()
		stale.Data["k"] = "stale"
		st := s.do(t, http.MethodPut, cmPath(ns, "a"), stale).wantStatus(t, http.StatusConflict, metav1.StatusReasonConflict)
		if st.Details == nil || st.Details.Name != "a" || st.Details.Kind != "configmaps" {
			t.Errorf("details %+v, want name a kind configmaps", st.Details)
		}
		if got := getCM(t, s, ns, "a", ""); got.Data["k"] != "2" {
			t.Errorf("stale update was applied: %v", got.Data)
		}
	})

	t.Run("WithoutResourceVersionIsUnconditional", func(t *testing.T) {
		blind := configMap("a", nil, map[string]string{"k": "blind"})
		got := updateCM(t, s, &corev1.ConfigMap{TypeMeta: blind.TypeMeta, ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}, Data: blind.Data})
		if got.Data["k"] != "blind" || rvOfCM(got) <= rvOfCM(v2) || got.UID != v1.UID {
			t.Errorf("unconditional update: %v at %s uid %s", got.Data, got.ResourceVersion, got.UID)
		}
	})

	t.Run("NoOpKeepsResourceVersion", func(t *testing.T) {
		cur := getCM(t, s, ns, "a", "")
		if got := updateCM(t, s, cur.DeepCopy()); got.ResourceVersion != cur.ResourceVersion {
			t.Errorf("no-op update moved resourceVersion %s to %s", cur.ResourceVersion, got.ResourceVersion)
		}
	})

	t.Run("NameMismatchIsBadRequest", func(t *testing.T) {
		s.do(t, http.MethodPut, cmPath(ns, "a"), configMap("b", nil, nil)).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	})

	t.Run("MissingIsNotFound", func(t *testing.T) {
		s.do(t, http.MethodPut, cmPath(ns, "missing"), configMap("missing", nil, nil)).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	})
}

// TestPatch checks the three patch types, no-op patches and the errors of
// a patch.
func TestPatch(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	base := createCM(t, s, ns, configMap("a", map[string]string{"keep": "1"}, map[string]string{"k": "v"}))

	got := patchCM(t, s, ns, "a", jsonPatch, `[{"op":"add","path":"/data/j","value":"json"}]`)
	if got.Data["j"] != "json" || got.Data["k"] != "v" || rvOfCM(got) <= rvOfCM(base) {
		t.Errorf("JSON patch: %v at %s", got.Data, got.ResourceVersion)
	}
	got = patchCM(t, s, ns, "a", mergePatch, `{"data":{"k":null,"m":"merge"}}`)
	if _, ok := got.Data["k"]; ok || got.Data["m"] != "merge" || got.Data["j"] != "json" {
		t.Errorf("merge patch: %v", got.Data)
	}
	got = patchCM(t, s, ns, "a", strategicPatch, `{"metadata":{"labels":{"added":"2"}},"data":{"s":"strategic"}}`)
	if got.Labels["keep"] != "1" || got.Labels["added"] != "2" || got.Data["s"] != "strategic" || got.Data["m"] != "merge" {
		t.Errorf("strategic merge patch: labels %v data %v", got.Labels, got.Data)
	}

	t.Run("NoOpKeepsResourceVersion", func(t *testing.T) {
		before := getCM(t, s, ns, "a", "")
		for typ, p := range map[string]string{
			mergePatch:     `{"data":{"m":"merge"}}`,
			strategicPatch: `{}`,
			jsonPatch:      `[]`,
		} {
			if got := patchCM(t, s, ns, "a", typ, p); got.ResourceVersion != before.ResourceVersion {
				t.Errorf("no-op %s patch moved resourceVersion %s to %s", typ, before.ResourceVersion, got.ResourceVersion)
			}
		}
	})

	t.Run("StaleResourceVersionIsConflict", func(t *testing.T) {
		s.do(t, http.MethodPatch, cmPath(ns, "a"), `{"metadata":{"resourceVersion":"`+base.ResourceVersion+`"},"data":{"x":"y"}}`, contentType(mergePatch)).
			wantStatus(t, http.StatusConflict, metav1.StatusReasonConflict)
	})

	t.Run("UnknownContentTypeIsUnsupported", func(t *testing.T) {
		for _, ct := range []string{"application/foo", "text/plain", "application/apply-patch+cbor"} {
			s.do(t, http.MethodPatch, cmPath(ns, "a"), `{}`, contentType(ct)).
				wantStatus(t, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType)
		}
	})

	t.Run("MissingIsNotFound", func(t *testing.T) {
		s.do(t, http.MethodPatch, cmPath(ns, "missing"), `{"data":{"a":"b"}}`, contentType(mergePatch)).
			wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	})

	t.Run("MalformedPatchIsBadRequest", func(t *testing.T) {
		s.do(t, http.MethodPatch, cmPath(ns, "a"), `{"data":`, contentType(mergePatch)).
			wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	})
}

// TestDelete checks DELETE of one object: the success Status,
// preconditions, dryRun, propagationPolicy and finalizers.
func TestDelete(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)

	t.Run("SuccessStatus", func(t *testing.T) {
		cm := createCM(t, s, ns, configMap("gone", nil, nil))
		var st metav1.Status
		s.do(t, http.MethodDelete, cmPath(ns, "gone"), nil).wantCode(t, http.StatusOK).decode(t, &st)
		if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != metav1.StatusSuccess {
			t.Errorf("delete answer %+v, want a Success Status", st)
		}
		if d := st.Details; d == nil || d.Name != "gone" || d.Group != "" || d.Kind != "configmaps" || d.UID != cm.UID {
			t.Errorf("details %+v, want name gone group \"\" kind configmaps uid %s", st.Details, cm.UID)
		}
		s.do(t, http.MethodGet, cmPath(ns, "gone"), nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
		s.do(t, http.MethodDelete, cmPath(ns, "gone"), nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	})

	t.Run("LeaseDetailsCarryGroup", func(t *testing.T) {
		l := coordinationv1.Lease{TypeMeta: metav1.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"}, ObjectMeta: metav1.ObjectMeta{Name: "l"}}
		path := "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases"
		var created coordinationv1.Lease
		s.do(t, http.MethodPost, path, l).wantCode(t, http.StatusCreated).decode(t, &created)
		var st metav1.Status
		s.do(t, http.MethodDelete, path+"/l", nil).wantCode(t, http.StatusOK).decode(t, &st)
		if d := st.Details; d == nil || d.Name != "l" || d.Group != "coordination.k8s.io" || d.Kind != "leases" || d.UID != created.UID {
			t.Errorf("details %+v, want name l group coordination.k8s.io kind leases uid %s", st.Details, created.UID)
		}
	})

	t.Run("Preconditions", func(t *testing.T) {
		cm := createCM(t, s, ns, configMap("pre", nil, nil))
		wrongUID := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr(types.UID("not-the-uid"))}}
		s.do(t, http.MethodDelete, cmPath(ns, "pre"), wrongUID).wantStatus(t, http.StatusConflict, metav1.StatusReasonConflict)
		wrongRV := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr("1")}}
		s.do(t, http.MethodDelete, cmPath(ns, "pre"), wrongRV).wantStatus(t, http.StatusConflict, metav1.StatusReasonConflict)
		getCM(t, s, ns, "pre", "")
		right := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cm.UID, ResourceVersion: &cm.ResourceVersion}}
		s.do(t, http.MethodDelete, cmPath(ns, "pre"), right).wantCode(t, http.StatusOK)
		s.do(t, http.MethodGet, cmPath(ns, "pre"), nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
	})

	t.Run("DryRunKeepsTheObject", func(t *testing.T) {
		cm := createCM(t, s, ns, configMap("dry", nil, nil))
		s.do(t, http.MethodDelete, cmPath(ns, "dry")+query("dryRun", "All"), nil).wantCode(t, http.StatusOK)
		if got := getCM(t, s, ns, "dry", ""); got.ResourceVersion != cm.ResourceVersion || got.DeletionTimestamp != nil {
			t.Errorf("after a dry-run delete: rv %s deletionTimestamp %v", got.ResourceVersion, got.DeletionTimestamp)
		}
		s.do(t, http.MethodDelete, cmPath(ns, "dry")+query("dryRun", "Everything"), nil).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	})

	t.Run("InvalidPropagationPolicy", func(t *testing.T) {
		createCM(t, s, ns, configMap("prop", nil, nil))
		st := s.do(t, http.MethodDelete, cmPath(ns, "prop")+query("propagationPolicy", "Sideways"), nil).
			wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		wantCause(t, st, metav1.CauseTypeFieldValueNotSupported, "propagationPolicy")
		body := metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletionPropagation("Sideways"))}
		s.do(t, http.MethodDelete, cmPath(ns, "prop"), body).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
		getCM(t, s, ns, "prop", "")
		s.do(t, http.MethodDelete, cmPath(ns, "prop")+query("propagationPolicy", "Foreground"), nil).wantCode(t, http.StatusOK)
	})

	t.Run("Finalizers", func(t *testing.T) {
		cm := configMap("held", nil, nil)
		cm.Finalizers = []string{"example.com/hold", "example.com/other"}
		created := createCM(t, s, ns, cm)
		var got corev1.ConfigMap
		s.do(t, http.MethodDelete, cmPath(ns, "held"), nil).wantCode(t, http.StatusOK).decode(t, &got)
		if got.Kind != "ConfigMap" || got.DeletionTimestamp == nil || got.Name != "held" {
			t.Fatalf("delete of an object with finalizers answered kind %q deletionTimestamp %v, want the object being deleted", got.Kind, got.DeletionTimestamp)
		}
		if rvOfCM(&got) <= rvOfCM(created) {
			t.Errorf("marking for deletion kept rv %s", got.ResourceVersion)
		}
		if g := getCM(t, s, ns, "held", ""); g.DeletionTimestamp == nil || !slices.Equal(g.Finalizers, cm.Finalizers) {
			t.Errorf("held object: deletionTimestamp %v finalizers %v", g.DeletionTimestamp, g.Finalizers)
		}
		patchCM(t, s, ns, "held", jsonPatch, `[{"op":"remove","path":"/metadata/finalizers/0"}]`)
		if g := getCM(t, s, ns, "held", ""); !slices.Equal(g.Finalizers, []string{"example.com/other"}) {
			t.Errorf("after dropping one finalizer: %v", g.Finalizers)
		}
		patchCM(t, s, ns, "held", mergePatch, `{"metadata":{"finalizers":null}}`)
		wantGone(t, s, cmPath(ns, "held"))
	})
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// TestDeleteCollection checks DELETE on a collection with a label
// selector.
func TestDeleteCollection(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	for _, name := range []string{"x1", "x2", "x3"} {
		createCM(t, s, ns, configMap(name, map[string]string{"app": "x"}, nil))
	}
	createCM(t, s, ns, configMap("y", map[string]string{"app": "y"}, nil))
	other := newNamespace(t, s)
	createCM(t, s, other, configMap("x1", map[string]string{"app": "x"}, nil))

	r := s.do(t, http.MethodDelete, cmPath(ns)+query("labelSelector", "app=x"), nil).wantCode(t, http.StatusOK)
	var l corev1.ConfigMapList
	r.decode(t, &l)
	if l.Kind != "ConfigMapList" || !slices.Equal(namesOf(l.Items), []string{"x1", "x2", "x3"}) {
		t.Errorf("deletecollection answered kind %q with %v, want a ConfigMapList of x1, x2, x3", l.Kind, namesOf(l.Items))
	}
	if got := namesOf(listCMs(t, s, cmPath(ns)).Items); !slices.Equal(got, []string{"y"}) {
		t.Errorf("left after deletecollection: %v, want y", got)
	}
	if got := namesOf(listCMs(t, s, cmPath(other)).Items); !slices.Equal(got, []string{"x1"}) {
		t.Errorf("other namespace after deletecollection: %v, want x1", got)
	}
}

// TestNamespaceDeletion checks that deleting a namespace marks it
// Terminating, refuses new content in it, empties it and removes it.
func TestNamespaceDeletion(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	createCM(t, s, ns, configMap("a", nil, nil))
	createCM(t, s, ns, configMap("b", nil, nil))
	held := configMap("held", nil, nil)
	held.Finalizers = []string{"example.com/hold"}
	createCM(t, s, ns, held)
	sec := corev1.Secret{TypeMeta: metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "s"}}
	s.do(t, http.MethodPost, "/api/v1/namespaces/"+ns+"/secrets", sec).wantCode(t, http.StatusCreated)

	var nsObj corev1.Namespace
	s.do(t, http.MethodDelete, "/api/v1/namespaces/"+ns, nil).wantCode(t, http.StatusOK).decode(t, &nsObj)
	if nsObj.Kind != "Namespace" || nsObj.DeletionTimestamp == nil || nsObj.Status.Phase != corev1.NamespaceTerminating {
		t.Errorf("namespace delete answered kind %q deletionTimestamp %v phase %q, want the Terminating namespace", nsObj.Kind, nsObj.DeletionTimestamp, nsObj.Status.Phase)
	}

	st := s.do(t, http.MethodPost, cmPath(ns), configMap("late", nil, nil)).wantStatus(t, http.StatusForbidden, metav1.StatusReasonForbidden)
	wantCause(t, st, metav1.CauseType(corev1.NamespaceTerminatingCause), "")

	waitFor(t, "the namespace's content to be deleted", func() bool {
		return len(listCMs(t, s, cmPath(ns)).Items) == 1 &&
			len(listNames(t, s, "/api/v1/namespaces/"+ns+"/secrets")) == 0
	})
	s.do(t, http.MethodGet, "/api/v1/namespaces/"+ns, nil).wantCode(t, http.StatusOK)
	patchCM(t, s, ns, "held", mergePatch, `{"metadata":{"finalizers":null}}`)
	wantGone(t, s, "/api/v1/namespaces/"+ns)
	if n := len(listCMs(t, s, cmPath(ns)).Items); n != 0 {
		t.Errorf("%d configmaps left in the removed namespace", n)
	}
}
