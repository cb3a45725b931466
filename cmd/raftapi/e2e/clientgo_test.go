package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestClientGoTyped drives every node kind with the typed clientset
// speaking Protobuf, as Kubernetes controllers do, and checks that the
// server answered in Protobuf.
func TestClientGoTyped(t *testing.T) {
	for _, tg := range startClientTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			cfg := restConfigFor(t, tg.addr())
			cfg.ContentType = protobuf
			rec := &wireRecorder{}
			rec.install(cfg)
			s := &typedScenario{cs: mustClientset(t, cfg), ns: "cg-" + tg.name}
			s.run(t, rec)
		})
	}
}

// typedScenario is one pass of typed-client calls in namespace ns.
type typedScenario struct {
	cs kubernetes.Interface
	ns string
}

func (s *typedScenario) run(t *testing.T, rec *wireRecorder) {
	steps := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"namespace", s.namespace},
		{"configmap-crud", s.configMapCRUD},
		{"update-conflict", s.updateConflict},
		{"get-not-found", s.getNotFound},
		{"create-already-exists", s.createAlreadyExists},
		{"secrets", s.secrets},
		{"leases", s.leases},
		{"events-field-selector", s.eventsFieldSelector},
		{"paging", s.paging},
		{"label-selector", s.labelSelector},
		{"watch", s.watch},
		{"delete-collection", s.deleteCollection},
		{"patch", s.patch},
		{"namespace-delete", s.namespaceDelete},
	}
	for _, st := range steps {
		t.Run(st.name, st.fn)
	}
	t.Run("protobuf-on-the-wire", func(t *testing.T) { checkProtobuf(t, rec.exchanges()) })
}

// checkProtobuf fails for every kind of exchange that was not Protobuf on
// the wire: bodies sent with POST and PUT, and every response (objects,
// lists, watch streams and Status errors alike). It reports one example
// per method, status code and content type.
func checkProtobuf(t *testing.T, log []exchange) {
	t.Helper()
	if len(log) == 0 {
		t.Fatal("no request recorded")
	}
	seen := map[string]bool{}
	for _, e := range log {
		if (e.method == "POST" || e.method == "PUT") && e.reqType != protobuf {
			t.Errorf("request not sent as Protobuf: %s", e)
		}
		want := protobuf
		if e.isWatch() {
			want = protobuf + ";stream=watch"
		}
		key := fmt.Sprintf("%s %d %s", e.method, e.code, e.respType)
		if e.code != 0 && e.respType != want && !seen[key] {
			seen[key] = true
			t.Errorf("server did not answer %s, e.g. %s", want, e)
		}
	}
}

func (s *typedScenario) namespace(t *testing.T) {
	ns, err := s.cs.CoreV1().Namespaces().Create(callCtx(t), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", s.ns, err)
	}
	if ns.Status.Phase != corev1.NamespaceActive || ns.UID == "" || ns.ResourceVersion == "" {
		t.Errorf("created namespace = %+v, want phase Active, a uid and a resourceVersion", ns)
	}
	if got := ns.Labels[corev1.LabelMetadataName]; got != s.ns {
		t.Errorf("namespace label %s = %q, want %q", corev1.LabelMetadataName, got, s.ns)
	}
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		t.Errorf("namespace spec.finalizers = %v, want %q", ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	}
	list, err := s.cs.CoreV1().Namespaces().List(callCtx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list namespaces: %v", err)
	}
	var names []string
	for _, n := range list.Items {
		names = append(names, n.Name)
	}
	// The clusters were started and waited for /readyz: by then the
	// system namespaces exist, as on a ready kube-apiserver.
	for _, want := range []string{"default", "kube-system", "kube-public", "kube-node-lease", s.ns} {
		if !slices.Contains(names, want) {
			t.Errorf("namespaces %v lack %s", names, want)
		}
	}
}

func (s *typedScenario) configMapCRUD(t *testing.T) {
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	created, err := cms.Create(callCtx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "crud"}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	got, err := cms.Get(callCtx(t), "crud", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.ResourceVersion != created.ResourceVersion || got.UID != created.UID || got.Data["a"] != "1" || got.Namespace != s.ns {
		t.Errorf("get = %+v, want what create returned %+v", got.ObjectMeta, created.ObjectMeta)
	}
	got.Data["a"] = "2"
	updated, err := cms.Update(callCtx(t), got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.Data["a"] != "2" || mustRV(t, updated.ResourceVersion) <= mustRV(t, got.ResourceVersion) {
		t.Errorf("update returned data %v rv %s after rv %s", updated.Data, updated.ResourceVersion, got.ResourceVersion)
	}
	if err := cms.Delete(callCtx(t), "crud", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := cms.Get(callCtx(t), "crud", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: err = %v, want NotFound", err)
	}
}

// mustRV parses a resourceVersion; the tests rely on raftapi's being the
// raft index, which grows.
func mustRV(t *testing.T, rv string) uint64 {
	t.Helper()
	var n uint64
	if _, err := fmt.Sscan(rv, &n); err != nil {
		t.Fatalf("resourceVersion %q: %v", rv, err)
	}
	return n
}

func (s *typedScenario) updateConflict(t *testing.T) {
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	stale, err := cms.Create(callCtx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "conflict"}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	fresh := stale.DeepCopy()
	fresh.Data["v"] = "1"
	if _, err := cms.Update(callCtx(t), fresh, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("first update: %v", err)
	}
	stale.Data["v"] = "2"
	_, err = cms.Update(callCtx(t), stale, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("update with stale resourceVersion %s: err = %v, want Conflict", stale.ResourceVersion, err)
	}
	want := `Operation cannot be fulfilled on configmaps "conflict": the object has been modified; please apply your changes to the latest version and try again`
	if err.Error() != want {
		t.Errorf("conflict message = %q, want %q", err, want)
	}
}

func (s *typedScenario) getNotFound(t *testing.T) {
	_, err := s.cs.CoreV1().ConfigMaps(s.ns).Get(callCtx(t), "missing", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("get missing: err = %v, want NotFound", err)
	}
	st := err.(apierrors.APIStatus).Status()
	if st.Code != 404 || st.Details == nil || st.Details.Name != "missing" || st.Details.Kind != "configmaps" || st.Message != `configmaps "missing" not found` {
		t.Errorf("NotFound status = %+v", st)
	}
	if _, err := s.cs.CoordinationV1().Leases(s.ns).Get(callCtx(t), "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get missing lease: err = %v, want NotFound", err)
	}
}

func (s *typedScenario) createAlreadyExists(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "twice"}}
	if _, err := s.cs.CoreV1().ConfigMaps(s.ns).Create(callCtx(t), cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := s.cs.CoreV1().ConfigMaps(s.ns).Create(callCtx(t), cm, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: err = %v, want AlreadyExists", err)
	}
}

func (s *typedScenario) secrets(t *testing.T) {
	secrets := s.cs.CoreV1().Secrets(s.ns)
	opaque := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "opaque"}, Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"bin": {0, 1, 2}}, StringData: map[string]string{"text": "hello"}}
	basic := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "basic"}, Type: corev1.SecretTypeBasicAuth,
		StringData: map[string]string{"username": "admin", "password": "hunter2"}}
	for _, sec := range []*corev1.Secret{opaque, basic} {
		if _, err := secrets.Create(callCtx(t), sec, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create secret %s: %v", sec.Name, err)
		}
	}
	got, err := secrets.Get(callCtx(t), "opaque", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if string(got.Data["text"]) != "hello" || string(got.Data["bin"]) != "\x00\x01\x02" || len(got.StringData) != 0 {
		t.Errorf("secret opaque data = %q stringData = %q, want stringData merged into data", got.Data, got.StringData)
	}
	got.Data["text"] = []byte("changed")
	if _, err := secrets.Update(callCtx(t), got, metav1.UpdateOptions{}); err != nil {
		t.Errorf("update: %v", err)
	}
	list, err := secrets.List(callCtx(t), metav1.ListOptions{FieldSelector: "type=" + string(corev1.SecretTypeBasicAuth)})
	if err != nil {
		t.Fatalf("list by type: %v", err)
	}
	if names := itemNames(list.Items); !slices.Equal(names, []string{"basic"}) {
		t.Errorf("secrets with type=%s: %v, want [basic]", corev1.SecretTypeBasicAuth, names)
	}
	bad := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Type: corev1.SecretTypeBasicAuth}
	if _, err := secrets.Create(callCtx(t), bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("create basic-auth secret without username or password: err = %v, want Invalid", err)
	}
}

// itemNames returns the names of list items, in list order.
func itemNames[T any, P interface {
	*T
	metav1.Object
}](items []T) []string {
	var names []string
	for i := range items {
		names = append(names, P(&items[i]).GetName())
	}
	return names
}

func (s *typedScenario) leases(t *testing.T) {
	leases := s.cs.CoordinationV1().Leases(s.ns)
	now := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "lock"}, Spec: coordinationv1.LeaseSpec{
		HolderIdentity: ptr.To("a"), LeaseDurationSeconds: ptr.To[int32](10), AcquireTime: &now, RenewTime: &now}}
	created, err := leases.Create(callCtx(t), l, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if !created.Spec.RenewTime.Equal(&now) || *created.Spec.HolderIdentity != "a" {
		t.Errorf("created lease spec = %+v, want renewTime %v to the microsecond", created.Spec, now)
	}
	renew := metav1.NewMicroTime(now.Add(time.Second))
	created.Spec.RenewTime = &renew
	created.Spec.LeaseTransitions = ptr.To[int32](1)
	updated, err := leases.Update(callCtx(t), created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if !updated.Spec.RenewTime.Equal(&renew) || *updated.Spec.LeaseTransitions != 1 {
		t.Errorf("updated lease spec = %+v", updated.Spec)
	}
	list, err := leases.List(callCtx(t), metav1.ListOptions{})
	if err != nil || !slices.Equal(itemNames(list.Items), []string{"lock"}) {
		t.Errorf("list leases = %v, %v; want [lock]", list, err)
	}
	if err := leases.Delete(callCtx(t), "lock", metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete: %v", err)
	}
}

func (s *typedScenario) eventsFieldSelector(t *testing.T) {
	events := s.cs.CoreV1().Events(s.ns)
	for _, obj := range []string{"obj-a", "obj-b"} {
		ev := &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: obj + ".e2e"},
			InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: s.ns, Name: obj},
			Reason:         "Tested", Message: "about " + obj, Type: corev1.EventTypeNormal,
			Source:         corev1.EventSource{Component: "e2e"},
			FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Count: 1,
		}
		if _, err := events.Create(callCtx(t), ev, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create event: %v", err)
		}
	}
	for _, sel := range []string{"involvedObject.name=obj-a", "involvedObject.name=obj-a,reason=Tested", "involvedObject.kind=ConfigMap,involvedObject.name!=obj-b"} {
		list, err := events.List(callCtx(t), metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			t.Fatalf("list events %s: %v", sel, err)
		}
		if names := itemNames(list.Items); !slices.Equal(names, []string{"obj-a.e2e"}) {
			t.Errorf("events with %s: %v, want [obj-a.e2e]", sel, names)
		}
	}
}

// paging lists the eight configmaps of a namespace of their own three at
// a time: kube-root-ca.crt, which every namespace gets, and seven more.
func (s *typedScenario) paging(t *testing.T) {
	ns := s.ns + "-paging"
	mustNamespace(t, s.cs, ns)
	cms := s.cs.CoreV1().ConfigMaps(ns)
	secEventually(t, 10*time.Second, "kube-root-ca.crt in "+ns, func() error {
		_, err := cms.Get(callCtx(t), "kube-root-ca.crt", metav1.GetOptions{})
		return err
	})
	want := []string{"kube-root-ca.crt"}
	for i := range 7 {
		name := fmt.Sprintf("page-%d", i)
		want = append(want, name)
		if _, err := cms.Create(callCtx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	var got []string
	opts := metav1.ListOptions{Limit: 3}
	for page := 0; ; page++ {
		list, err := cms.List(callCtx(t), opts)
		if err != nil {
			t.Fatalf("list page %d (continue %q): %v", page, opts.Continue, err)
		}
		got = append(got, itemNames(list.Items)...)
		left := len(want) - len(got)
		if left == 0 {
			if list.Continue != "" || list.RemainingItemCount != nil {
				t.Errorf("last page has continue %q remainingItemCount %v", list.Continue, list.RemainingItemCount)
			}
			break
		}
		if len(list.Items) != 3 || list.Continue == "" || list.RemainingItemCount == nil || *list.RemainingItemCount != int64(left) {
			t.Fatalf("page %d: %d items, continue %q, remainingItemCount %v; want 3, a token, %d", page, len(list.Items), list.Continue, list.RemainingItemCount, left)
		}
		opts.Continue = list.Continue
	}
	if !slices.Equal(got, want) {
		t.Errorf("paged list = %v, want %v", got, want)
	}
}

func (s *typedScenario) labelSelector(t *testing.T) {
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	for name, tier := range map[string]string{"tier-a": "a", "tier-b": "b", "tier-none": ""} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"sel": "yes"}}}
		if tier != "" {
			cm.Labels["tier"] = tier
		}
		if _, err := cms.Create(callCtx(t), cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	cases := map[string][]string{
		"sel=yes,tier=a":              {"tier-a"},
		"sel=yes,tier!=a":             {"tier-b", "tier-none"},
		"sel=yes,tier in (a,b)":       {"tier-a", "tier-b"},
		"sel=yes,!tier":               {"tier-none"},
		"sel=yes,tier,tier notin (b)": {"tier-a"},
		"sel=no":                      nil,
	}
	for sel, want := range cases {
		list, err := cms.List(callCtx(t), metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			t.Fatalf("list %s: %v", sel, err)
		}
		if got := itemNames(list.Items); !slices.Equal(got, want) {
			t.Errorf("configmaps with %q: %v, want %v", sel, got, want)
		}
	}
}

// watch watches from a list's resourceVersion and sees a create, an
// update and a delete, in order; a second, label-selected watch sees the
// object enter and leave its selection.
func (s *typedScenario) watch(t *testing.T) {
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	list, err := cms.List(callCtx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	w, err := cms.Watch(callCtx(t), metav1.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	sw, err := cms.Watch(callCtx(t), metav1.ListOptions{ResourceVersion: list.ResourceVersion, LabelSelector: "watched=yes"})
	if err != nil {
		t.Fatalf("watch with selector: %v", err)
	}
	defer sw.Stop()
	cm, err := cms.Create(callCtx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	cm.Labels = map[string]string{"watched": "yes"}
	if cm, err = cms.Update(callCtx(t), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update: %v", err)
	}
	cm.Labels = nil
	if _, err = cms.Update(callCtx(t), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update: %v", err)
	}
	if err := cms.Delete(callCtx(t), "watched", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	expectEvents(t, w, "watched", watch.Added, watch.Modified, watch.Modified, watch.Deleted)
	expectEvents(t, sw, "watched", watch.Added, watch.Deleted)
}

func (s *typedScenario) deleteCollection(t *testing.T) {
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	for i := range 4 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("dc-%d", i), Labels: map[string]string{"dc": "keep"}}}
		if i > 0 {
			cm.Labels["dc"] = "drop"
		}
		if _, err := cms.Create(callCtx(t), cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create: %v", err)
		}
	}
	if err := cms.DeleteCollection(callCtx(t), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "dc=drop"}); err != nil {
		t.Fatalf("deletecollection: %v", err)
	}
	list, err := cms.List(callCtx(t), metav1.ListOptions{LabelSelector: "dc"})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if got := itemNames(list.Items); !slices.Equal(got, []string{"dc-0"}) {
		t.Errorf("after deletecollection dc=drop, configmaps labelled dc: %v, want [dc-0]", got)
	}
}

// patch applies each patch type to one configmap.
func (s *typedScenario) patch(t *testing.T) {
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	if _, err := cms.Create(callCtx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "patched"}, Data: map[string]string{"base": "0"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	cases := []struct {
		typ        types.PatchType
		body, key  string
		wantValue  string
		wantAbsent string
	}{
		{types.JSONPatchType, `[{"op":"add","path":"/data/json","value":"j"}]`, "json", "j", ""},
		{types.MergePatchType, `{"data":{"merge":"m","json":null}}`, "merge", "m", "json"},
		{types.StrategicMergePatchType, `{"data":{"smp":"s"},"metadata":{"labels":{"patched":"yes"}}}`, "smp", "s", ""},
	}
	for _, c := range cases {
		got, err := cms.Patch(callCtx(t), "patched", c.typ, []byte(c.body), metav1.PatchOptions{})
		if err != nil {
			t.Errorf("%s patch: %v", c.typ, err)
			continue
		}
		if got.Data[c.key] != c.wantValue || got.Data["base"] != "0" {
			t.Errorf("after %s patch, data = %v", c.typ, got.Data)
		}
		if _, ok := got.Data[c.wantAbsent]; c.wantAbsent != "" && ok {
			t.Errorf("after %s patch, data = %v still has %q", c.typ, got.Data, c.wantAbsent)
		}
	}
	if _, err := cms.Patch(callCtx(t), "missing", types.MergePatchType, []byte(`{"data":{"a":"b"}}`), metav1.PatchOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("merge patch of a missing object: err = %v, want NotFound", err)
	}
}

// namespaceDelete deletes the scenario's namespace: its content goes, then
// the namespace itself.
func (s *typedScenario) namespaceDelete(t *testing.T) {
	if err := s.cs.CoreV1().Namespaces().Delete(callCtx(t), s.ns, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete namespace: %v", err)
	}
	pollUntil(t, 30*time.Second, "namespace "+s.ns+" to be gone", func() error {
		ns, err := s.cs.CoreV1().Namespaces().Get(callCtx(t), s.ns, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		}
		return fmt.Errorf("still there, phase %s, deletionTimestamp %v, conditions %v", ns.Status.Phase, ns.DeletionTimestamp, ns.Status.Conditions)
	})
	list, err := s.cs.CoreV1().ConfigMaps(s.ns).List(callCtx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list configmaps of the deleted namespace: %v", err)
	}
	if len(list.Items) != 0 {
		t.Errorf("deleted namespace still holds configmaps %s", strings.Join(itemNames(list.Items), ", "))
	}
}
