package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"
)

// crdGVR is the resource of CustomResourceDefinitions.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// TestCRDClientGo installs the Widget CRD with client-go's dynamic client
// and drives widgets with it: on a single node, and on a 3-node cluster
// where the CRD is created through the leader and the widgets are served
// by a follower and by the leader. A dynamic informer on a follower,
// syncing by WatchList, sees the changes made through the leader.
func TestCRDClientGo(t *testing.T) {
	one := startCluster(t, 1)
	three := startCluster(t, 3)
	l := three.waitLeader(-1)
	follower := (l + 1) % 3
	t.Run("1node", func(t *testing.T) {
		gvr := crdInstall(t, one.nodes[0].api, crdGroup("cg-1node"), one.nodes[0].api)
		runCRDDynamic(t, one.nodes[0].api, gvr, "cg-1node")
	})
	t.Run("3node", func(t *testing.T) {
		gvr := crdInstall(t, three.nodes[l].api, crdGroup("cg-3node"), three.nodes[0].api, three.nodes[1].api, three.nodes[2].api)
		t.Run("follower", func(t *testing.T) { runCRDDynamic(t, three.nodes[follower].api, gvr, "cg-3node-follower") })
		t.Run("leader", func(t *testing.T) { runCRDDynamic(t, three.nodes[l].api, gvr, "cg-3node-leader") })
		t.Run("informer-watchlist", func(t *testing.T) {
			runCRDInformer(t, three.nodes[follower].api, three.nodes[l].api, gvr)
		})
	})
}

// crdMustDynamic returns a dynamic client of the node at addr.
func crdMustDynamic(t *testing.T, addr string) *dynamic.DynamicClient {
	t.Helper()
	dc, err := dynamic.NewForConfig(restConfigFor(t, addr))
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// crdInstall creates the fixture CRD in group through the node at
// addr, waits until it is Established and until every node in servedBy
// lists widgets in its discovery, and returns the widgets' resource.
func crdInstall(t *testing.T, addr, group string, servedBy ...string) schema.GroupVersionResource {
	t.Helper()
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(crdWidgetCRD(t, group)), &crd.Object); err != nil {
		t.Fatalf("fixture CRD: %v", err)
	}
	crds := crdMustDynamic(t, addr).Resource(crdGVR)
	if _, err := crds.Create(callCtx(t), crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CRD %s: %v", crd.GetName(), err)
	}
	pollUntil(t, 10*time.Second, "CRD "+crd.GetName()+" to be Established", func() error {
		got, err := crds.Get(callCtx(t), crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			if c := c.(map[string]any); c["type"] == "Established" && c["status"] == "True" {
				return nil
			}
		}
		return fmt.Errorf("conditions %v", conds)
	})
	for _, node := range servedBy {
		pollUntil(t, 10*time.Second, "discovery of "+node+" to list widgets", func() error {
			return crdCheckDiscovery(node, group)
		})
	}
	return schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}
}

// crdCheckDiscovery checks what the discovery of the node at addr says
// about widgets, in the aggregated form client-go asks for first and in
// the legacy per-version form.
func crdCheckDiscovery(addr, group string) error {
	cfg, err := restConfigAt(addr)
	if err != nil {
		return err
	}
	rec := &wireRecorder{}
	rec.install(cfg)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(lists, func(l *metav1.APIResourceList) bool { return l.GroupVersion == group+"/v1" })
	if i < 0 {
		return fmt.Errorf("discovery lacks %s/v1", group)
	}
	if err := crdCheckWidgetResources(lists[i]); err != nil {
		return fmt.Errorf("aggregated discovery: %w", err)
	}
	if !slices.ContainsFunc(rec.exchanges(), func(e exchange) bool {
		path, _, _ := strings.Cut(e.url, "?")
		return path == "/apis" && strings.Contains(e.respType, "g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	}) {
		return fmt.Errorf("no aggregated discovery answer to GET /apis: %v", rec.exchanges())
	}
	legacy, err := dc.ServerResourcesForGroupVersion(group + "/v1")
	if err != nil {
		return err
	}
	if err := crdCheckWidgetResources(legacy); err != nil {
		return fmt.Errorf("GET /apis/%s/v1: %w", group, err)
	}
	return nil
}

// crdCheckWidgetResources checks the widgets resource and subresources
// of one discovery list.
func crdCheckWidgetResources(list *metav1.APIResourceList) error {
	found := map[string]metav1.APIResource{}
	for _, r := range list.APIResources {
		found[r.Name] = r
	}
	w, ok := found["widgets"]
	switch {
	case !ok:
		return fmt.Errorf("%s lists %v, no widgets", list.GroupVersion, list.APIResources)
	case w.Kind != "Widget" || !w.Namespaced || w.SingularName != "widget" ||
		!slices.Equal(w.ShortNames, []string{"wdg"}) || !slices.Equal(w.Categories, []string{"all"}):
		return fmt.Errorf("widgets = %+v", w)
	case !slices.Contains(w.Verbs, "watch") || !slices.Contains(w.Verbs, "deletecollection"):
		return fmt.Errorf("widgets verbs = %v", w.Verbs)
	}
	if _, ok := found["widgets/status"]; !ok {
		return fmt.Errorf("%s lacks widgets/status", list.GroupVersion)
	}
	if sc := found["widgets/scale"]; sc.Kind != "Scale" || sc.Group != "autoscaling" || sc.Version != "v1" {
		return fmt.Errorf("widgets/scale = %+v, want an autoscaling/v1 Scale", sc)
	}
	return nil
}

// crdDynamic drives widgets in one namespace with the dynamic client.
type crdDynamic struct {
	rc        dynamic.ResourceInterface
	gvr       schema.GroupVersionResource
	namespace string
}

// runCRDDynamic runs the dynamic-client steps through the node at addr,
// in namespace ns.
func runCRDDynamic(t *testing.T, addr string, gvr schema.GroupVersionResource, ns string) {
	mustNamespace(t, mustClientset(t, restConfigFor(t, addr)), ns)
	d := &crdDynamic{rc: crdMustDynamic(t, addr).Resource(gvr).Namespace(ns), gvr: gvr, namespace: ns}
	steps := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"create-get", d.createGet},
		{"list-selectors", d.listSelectors},
		{"update", d.update},
		{"update-unconditional", d.updateUnconditional},
		{"update-status", d.updateStatus},
		{"patch", d.patch},
		{"invalid", d.invalid},
		{"delete", d.delete},
	}
	for _, st := range steps {
		t.Run(st.name, st.fn)
	}
}

// widget is a Widget named name with label app=name and spec.color color.
func (d *crdDynamic) widget(name, color string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": d.gvr.GroupVersion().String(), "kind": "Widget",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"app": name}},
		"spec":     map[string]any{"color": color},
	}}
}

// get returns widget name, failing the test if it cannot.
func (d *crdDynamic) get(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := d.rc.Get(callCtx(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	return u
}

// crdField returns a field of u as printed by %v ("<none>" when absent).
func crdField(u *unstructured.Unstructured, path ...string) string {
	v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
	if !ok {
		return "<none>"
	}
	return fmt.Sprint(v)
}

func (d *crdDynamic) createGet(t *testing.T) {
	for _, w := range []struct{ name, color string }{{"dyn-a", "red"}, {"dyn-b", "blue"}} {
		created, err := d.rc.Create(callCtx(t), d.widget(w.name, w.color), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", w.name, err)
		}
		if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetGeneration() != 1 || created.GetNamespace() != d.namespace {
			t.Errorf("created %s metadata = %v", w.name, created.Object["metadata"])
		}
		if got := crdField(created, "spec", "size") + " " + crdField(created, "spec", "replicas"); got != "medium 1" {
			t.Errorf("created %s defaulted spec.size spec.replicas = %q, want medium 1", w.name, got)
		}
	}
	got := d.get(t, "dyn-a")
	if got.GetKind() != "Widget" || got.GetAPIVersion() != d.gvr.GroupVersion().String() || crdField(got, "spec", "color") != "red" {
		t.Errorf("get dyn-a = %v", got.Object)
	}
	if _, err := d.rc.Create(callCtx(t), d.widget("dyn-a", "red"), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create of dyn-a: err = %v, want AlreadyExists", err)
	}
}

// listSelectors lists all widgets, by label and by field: the CRD's
// selectable field spec.color and metadata.name are accepted, another
// spec field is refused as kube-apiserver refuses it.
func (d *crdDynamic) listSelectors(t *testing.T) {
	cases := []struct {
		name string
		opts metav1.ListOptions
		want []string
	}{
		{"all", metav1.ListOptions{}, []string{"dyn-a", "dyn-b"}},
		{"label", metav1.ListOptions{LabelSelector: "app=dyn-a"}, []string{"dyn-a"}},
		{"label-set", metav1.ListOptions{LabelSelector: "app in (dyn-a,dyn-b),app!=dyn-a"}, []string{"dyn-b"}},
		{"selectable-field", metav1.ListOptions{FieldSelector: "spec.color=blue"}, []string{"dyn-b"}},
		{"selectable-field-not", metav1.ListOptions{FieldSelector: "spec.color!=blue"}, []string{"dyn-a"}},
		{"metadata-name", metav1.ListOptions{FieldSelector: "metadata.name=dyn-a"}, []string{"dyn-a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			list, err := d.rc.List(callCtx(t), c.opts)
			if err != nil {
				t.Fatalf("list %+v: %v", c.opts, err)
			}
			var names []string
			for _, it := range list.Items {
				names = append(names, it.GetName())
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("list %+v = %v, want %v", c.opts, names, c.want)
			}
			if list.GetKind() != "WidgetList" || list.GetAPIVersion() != d.gvr.GroupVersion().String() || list.GetResourceVersion() == "" {
				t.Errorf("list is %s %s at resourceVersion %q, want a WidgetList", list.GetAPIVersion(), list.GetKind(), list.GetResourceVersion())
			}
		})
	}
	t.Run("not-selectable", func(t *testing.T) {
		_, err := d.rc.List(callCtx(t), metav1.ListOptions{FieldSelector: "spec.size=medium"})
		if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "field label not supported: spec.size") {
			t.Errorf("list with field selector spec.size: err = %v, want BadRequest field label not supported: spec.size", err)
		}
	})
}

// update changes the spec (generation moves) and is refused with a stale
// resourceVersion.
func (d *crdDynamic) update(t *testing.T) {
	stale := d.get(t, "dyn-a")
	fresh := stale.DeepCopy()
	if err := unstructured.SetNestedField(fresh.Object, "green", "spec", "color"); err != nil {
		t.Fatal(err)
	}
	updated, err := d.rc.Update(callCtx(t), fresh, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if crdField(updated, "spec", "color") != "green" || updated.GetGeneration() != 2 || mustRV(t, updated.GetResourceVersion()) <= mustRV(t, stale.GetResourceVersion()) {
		t.Errorf("update returned spec.color %s generation %d rv %s after rv %s", crdField(updated, "spec", "color"),
			updated.GetGeneration(), updated.GetResourceVersion(), stale.GetResourceVersion())
	}
	// stale is unchanged, yet an update from it is a conflict:
	// kube-apiserver compares resourceVersions before it looks for a no-op.
	got, err := d.rc.Update(callCtx(t), stale, metav1.UpdateOptions{})
	want := `Operation cannot be fulfilled on widgets.` + d.gvr.Group + ` "dyn-a": the object has been modified; please apply your changes to the latest version and try again`
	if !apierrors.IsConflict(err) || err.Error() != want {
		answer := fmt.Sprint(err)
		if got != nil {
			answer = fmt.Sprintf("success with resourceVersion %s, spec.color %s", got.GetResourceVersion(), crdField(got, "spec", "color"))
		}
		t.Errorf("update with stale resourceVersion %s after an update to %s: %s; want Conflict %q",
			stale.GetResourceVersion(), updated.GetResourceVersion(), answer, want)
	}
}

// updateUnconditional replaces a widget twice in a row without a
// resourceVersion, the second time back to its content before the first:
// both writes land and the last one wins.
func (d *crdDynamic) updateUnconditional(t *testing.T) {
	w := d.get(t, "dyn-a")
	w.SetResourceVersion("")
	before := crdField(w, "spec", "color")
	orange := w.DeepCopy()
	if err := unstructured.SetNestedField(orange.Object, "orange", "spec", "color"); err != nil {
		t.Fatal(err)
	}
	first, err := d.rc.Update(callCtx(t), orange, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update to orange: %v", err)
	}
	second, err := d.rc.Update(callCtx(t), w, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update back to %s: %v", before, err)
	}
	if mustRV(t, second.GetResourceVersion()) <= mustRV(t, first.GetResourceVersion()) || crdField(second, "spec", "color") != before {
		t.Errorf("update back to %s after an update to orange at resourceVersion %s returned spec.color %s at resourceVersion %s",
			before, first.GetResourceVersion(), crdField(second, "spec", "color"), second.GetResourceVersion())
	}
	if now := d.get(t, "dyn-a"); crdField(now, "spec", "color") != before {
		t.Errorf("after updates to orange and back to %s, the widget is %s at resourceVersion %s: the second update was acknowledged and lost",
			before, crdField(now, "spec", "color"), now.GetResourceVersion())
	}
}

// updateStatus writes status through the status subresource, where spec
// changes are ignored, and through the resource, where status changes are.
func (d *crdDynamic) updateStatus(t *testing.T) {
	w := d.get(t, "dyn-a")
	color, gen := crdField(w, "spec", "color"), w.GetGeneration()
	if err := unstructured.SetNestedMap(w.Object, map[string]any{"phase": "Ready", "replicas": int64(1), "selector": "app=dyn-a"}, "status"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(w.Object, "black", "spec", "color"); err != nil {
		t.Fatal(err)
	}
	got, err := d.rc.UpdateStatus(callCtx(t), w, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status: %v", err)
	}
	if s := crdField(got, "status", "phase") + " " + crdField(got, "spec", "color"); s != "Ready "+color || got.GetGeneration() != gen {
		t.Errorf("after UpdateStatus, status.phase spec.color = %q generation %d, want Ready %s %d", s, got.GetGeneration(), color, gen)
	}
	if err := unstructured.SetNestedField(got.Object, "Lost", "status", "phase"); err != nil {
		t.Fatal(err)
	}
	got, err = d.rc.Update(callCtx(t), got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if s := crdField(d.get(t, "dyn-a"), "status", "phase"); s != "Ready" || crdField(got, "status", "phase") != "Ready" {
		t.Errorf("an update of the resource changed status.phase to %q", s)
	}
}

// patch merges and JSON-patches the spec, and patches the status.
func (d *crdDynamic) patch(t *testing.T) {
	cases := []struct {
		typ         types.PatchType
		patch       string
		subresource []string
		path        []string
		want        string
	}{
		{types.MergePatchType, `{"spec":{"replicas":3}}`, nil, []string{"spec", "replicas"}, "3"},
		{types.JSONPatchType, `[{"op":"replace","path":"/spec/color","value":"white"}]`, nil, []string{"spec", "color"}, "white"},
		{types.MergePatchType, `{"status":{"phase":"Degraded"}}`, []string{"status"}, []string{"status", "phase"}, "Degraded"},
	}
	for _, c := range cases {
		p, err := d.rc.Patch(callCtx(t), "dyn-a", c.typ, []byte(c.patch), metav1.PatchOptions{}, c.subresource...)
		if err != nil {
			t.Fatalf("%s patch %s: %v", c.typ, c.patch, err)
		}
		if got := crdField(p, c.path...); got != c.want {
			t.Errorf("after %s patch %s, %v = %s, want %s", c.typ, c.patch, c.path, got, c.want)
		}
	}
	_, err := d.rc.Patch(callCtx(t), "dyn-a", types.StrategicMergePatchType, []byte(`{"spec":{"replicas":4}}`), metav1.PatchOptions{})
	if !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch of a custom resource: err = %v, want UnsupportedMediaType", err)
	}
}

// invalid sends a widget breaking the pattern and the CEL rule: 422 with
// a cause per field.
func (d *crdDynamic) invalid(t *testing.T) {
	w := d.widget("dyn-bad", "Not-A-Colour")
	if err := unstructured.SetNestedField(w.Object, int64(5), "spec", "minReplicas"); err != nil {
		t.Fatal(err)
	}
	_, err := d.rc.Create(callCtx(t), w, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("create dyn-bad: err = %v, want Invalid", err)
	}
	st := err.(apierrors.APIStatus).Status()
	causes := map[string]string{}
	for _, c := range st.Details.Causes {
		causes[c.Field] = c.Message
	}
	if st.Details.Kind != "Widget" || st.Details.Group != d.gvr.Group || st.Details.Name != "dyn-bad" ||
		!strings.Contains(causes["spec.color"], "spec.color in body should match '^[a-z]+$'") ||
		!strings.Contains(causes["spec"], crdCELMessage) {
		t.Errorf("Invalid status details = %+v, want causes on spec.color (pattern) and spec (CEL rule)", st.Details)
	}
}

// delete deletes one widget; the other stays.
func (d *crdDynamic) delete(t *testing.T) {
	if err := d.rc.Delete(callCtx(t), "dyn-a", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	_, err := d.rc.Get(callCtx(t), "dyn-a", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) || err.Error() != `widgets.`+d.gvr.Group+` "dyn-a" not found` {
		t.Errorf("get after delete: err = %v, want NotFound", err)
	}
	list, err := d.rc.List(callCtx(t), metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "dyn-b" {
		t.Errorf("list after delete = %v, %v; want dyn-b alone", list, err)
	}
}

// runCRDInformer starts a dynamic informer for widgets on the node at
// watchAddr with client-go's WatchListClient feature on, checks it synced
// by a watch with sendInitialEvents alone, and that its handlers see the
// widgets created, updated and deleted through the node at writeAddr.
func runCRDInformer(t *testing.T, watchAddr, writeAddr string, gvr schema.GroupVersionResource) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	const ns = "cg-informer"
	mustNamespace(t, mustClientset(t, restConfigFor(t, writeAddr)), ns)
	writer := &crdDynamic{rc: crdMustDynamic(t, writeAddr).Resource(gvr).Namespace(ns), gvr: gvr, namespace: ns}
	if _, err := writer.rc.Create(callCtx(t), writer.widget("pre", "red"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pre: %v", err)
	}

	cfg := restConfigFor(t, watchAddr)
	rec := &wireRecorder{}
	rec.install(cfg)
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, ns, nil)
	defer func() { cancel(); factory.Shutdown() }()
	inf := factory.ForResource(gvr).Informer()
	log := &handlerLog{}
	if _, err := inf.AddEventHandler(crdWidgetHandler(log)); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatalf("informer did not sync within 30s; requests: %v", rec.exchanges())
	}
	log.waitFor(t, "add pre color=red")
	crdCheckWatchListSync(t, rec.exchanges())

	if _, err := writer.rc.Create(callCtx(t), writer.widget("live", "red"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create live: %v", err)
	}
	log.waitFor(t, "add live color=red")
	if _, err := writer.rc.Patch(callCtx(t), "live", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch live: %v", err)
	}
	log.waitFor(t, "update live color=blue")
	if err := writer.rc.Delete(callCtx(t), "live", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete live: %v", err)
	}
	log.waitFor(t, "delete live")
	if got := log.about("live"); !slices.Equal(got, []string{"add live color=red", "update live color=blue", "delete live"}) {
		t.Errorf("handlers saw %v for live, want add, update, delete once each", got)
	}
	if keys := inf.GetStore().ListKeys(); !slices.Equal(keys, []string{ns + "/pre"}) {
		t.Errorf("informer store holds %v, want %s/pre alone", keys, ns)
	}
}

// crdCheckWatchListSync checks that the informer listed widgets only by
// watches asking for initial events, none by a plain LIST.
func crdCheckWatchListSync(t *testing.T, log []exchange) {
	t.Helper()
	var lists, streams []exchange
	for _, e := range log {
		switch {
		case !strings.Contains(e.url, "/widgets"):
		case e.isWatch() && strings.Contains(e.url, "sendInitialEvents=true"):
			streams = append(streams, e)
		case !e.isWatch():
			lists = append(lists, e)
		}
	}
	if len(streams) == 0 || len(lists) > 0 {
		t.Errorf("informer did not sync by WatchList alone: watch-list requests %v, list requests %v", streams, lists)
	}
	for _, e := range slices.Concat(streams, lists) {
		if e.code != 200 {
			t.Errorf("informer request failed: %s", e)
		}
	}
}

// crdWidgetHandler records an informer's calls into log as
// "add NAME color=C", "update NAME color=C" and "delete NAME".
func crdWidgetHandler(log *handlerLog) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			u := obj.(*unstructured.Unstructured)
			log.record("add %s color=%s", u.GetName(), crdField(u, "spec", "color"))
		},
		UpdateFunc: func(_, obj any) {
			u := obj.(*unstructured.Unstructured)
			log.record("update %s color=%s", u.GetName(), crdField(u, "spec", "color"))
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			log.record("delete %s", obj.(*unstructured.Unstructured).GetName())
		},
	}
}
