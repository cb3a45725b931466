package e2e

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// thingScenario drives the things CRD, converted by a webhook, with
// client-go through one node.
type thingScenario struct {
	wh        *thingWebhook
	dyn       dynamic.Interface
	ns, group string
}

// runThingsWebhook runs the webhook conversion scenario through the node
// at addr, in a group and namespace named after name.
func runThingsWebhook(t *testing.T, addr, name string) {
	s := &thingScenario{wh: startThingWebhook(t), dyn: crdMustDynamic(t, addr), ns: name, group: crdVersionsGroupOf(name)}
	mustNamespace(t, mustClientset(t, restConfigFor(t, addr)), s.ns)
	if _, err := s.dyn.Resource(crdGVR).Create(callCtx(t), s.crd(t), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create the things CRD: %v", err)
	}
	crdVersionsWaitServed(t, s.group, "things", s.ns, []string{"v1", "v2"}, addr)
	t.Run("convert", s.convert)
	t.Run("list-batched", s.listBatched)
	t.Run("failure", s.failure)
	t.Run("service-refused", s.serviceRefused)
}

// crd is the things CRD pointing at the scenario's webhook.
func (s *thingScenario) crd(t *testing.T) *unstructured.Unstructured {
	m := crdVersionsFixture(t, "things-webhook.yaml", s.group)
	m = strings.ReplaceAll(m, "WEBHOOK_URL", s.wh.url())
	m = strings.ReplaceAll(m, "WEBHOOK_CA_BUNDLE", base64.StdEncoding.EncodeToString(s.wh.caPEM))
	return crdVersionsObject(t, m)
}

func (s *thingScenario) resource(version string) dynamic.ResourceInterface {
	return s.dyn.Resource(schema.GroupVersionResource{Group: s.group, Version: version, Resource: "things"}).Namespace(s.ns)
}

// thing is a thing written in version with spec field (count in v1,
// total in v2) n.
func (s *thingScenario) thing(name, version string, n int64) *unstructured.Unstructured {
	field := map[string]string{"v1": "count", "v2": "total"}[version]
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": s.group + "/" + version, "kind": "Thing",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{field: n},
	}}
}

// mustCreate creates a thing and checks the answer's spec.
func (s *thingScenario) mustCreate(t *testing.T, name, version string, n int64) {
	t.Helper()
	obj := s.thing(name, version, n)
	got, err := s.resource(version).Create(callCtx(t), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s in %s: %v", name, version, err)
	}
	if canonicalJSON(got.Object["spec"]) != canonicalJSON(obj.Object["spec"]) || got.GetAPIVersion() != s.group+"/"+version {
		t.Errorf("create %s in %s answered %s %s, want spec %s", name, version, got.GetAPIVersion(), canonicalJSON(got.Object["spec"]), canonicalJSON(obj.Object["spec"]))
	}
}

// wantSpec reads a thing in version and checks its spec.
func (s *thingScenario) wantSpec(t *testing.T, name, version string, n int64) {
	t.Helper()
	got, err := s.resource(version).Get(callCtx(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s in %s: %v", name, version, err)
	}
	want := s.thing(name, version, n)
	if canonicalJSON(got.Object["spec"]) != canonicalJSON(want.Object["spec"]) || got.GetAPIVersion() != want.GetAPIVersion() {
		t.Errorf("%s read in %s: %s %s, want %s %s", name, version, got.GetAPIVersion(), canonicalJSON(got.Object["spec"]), want.GetAPIVersion(), canonicalJSON(want.Object["spec"]))
	}
}

// convert writes in the storage version (v1: no webhook call) and in v2,
// and reads each thing in both versions.
func (s *thingScenario) convert(t *testing.T) {
	n := s.wh.count()
	s.mustCreate(t, "t1", "v1", 1)
	s.wantSpec(t, "t1", "v1", 1)
	if got := s.wh.since(n); len(got) > 0 {
		t.Errorf("a create and a get in the storage version called the webhook: %v", got)
	}
	s.mustCreate(t, "t2", "v2", 2)
	s.wantSpec(t, "t1", "v2", 1)
	s.wantSpec(t, "t2", "v1", 2)
	s.wantSpec(t, "t2", "v2", 2)
	if !slices.ContainsFunc(s.wh.since(n), func(r thingReview) bool { return r.desired == s.group+"/v1" && slices.Equal(r.names, []string{"t2"}) }) {
		t.Errorf("a create in v2 did not ask the webhook for t2 in the storage version: %v", s.wh.since(n))
	}
	u, err := s.resource("v2").Get(callCtx(t), "t1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(u.Object, int64(10), "spec", "total"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.resource("v2").Update(callCtx(t), u, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update t1 through v2: %v", err)
	}
	s.wantSpec(t, "t1", "v1", 10)
}

// listBatched lists three things in v2: the webhook gets one
// ConversionReview holding all three.
func (s *thingScenario) listBatched(t *testing.T) {
	s.mustCreate(t, "t3", "v1", 3)
	n := s.wh.count()
	list, err := s.resource("v2").List(callCtx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list in v2: %v", err)
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.GetName()+"="+canonicalJSON(it.Object["spec"]))
	}
	if want := []string{`t1={"total":10}`, `t2={"total":2}`, `t3={"total":3}`}; !slices.Equal(got, want) {
		t.Errorf("list in v2 = %v, want %v", got, want)
	}
	reviews := s.wh.since(n)
	if len(reviews) != 1 || reviews[0].desired != s.group+"/v2" || !slices.Equal(reviews[0].names, []string{"t1", "t2", "t3"}) {
		t.Errorf("a list of three things in v2 sent the webhook %+v, want one review of t1, t2 and t3 to %s/v2", reviews, s.group)
	}
}

// failure has the webhook refuse one thing: a get of it and a list
// holding it fail with 500 and the webhook's message, as kube-apiserver
// answers; in the storage version it still reads.
func (s *thingScenario) failure(t *testing.T) {
	s.mustCreate(t, "broken", "v1", 0)
	wantMsg := "conversion webhook for " + s.group + "/v1, Kind=Thing failed: " + brokenMessage("broken")
	_, err := s.resource("v2").Get(callCtx(t), "broken", metav1.GetOptions{})
	wantStatus(t, "get broken in v2", err, http.StatusInternalServerError, wantMsg)
	_, err = s.resource("v2").List(callCtx(t), metav1.ListOptions{})
	wantStatus(t, "list in v2 holding broken", err, http.StatusInternalServerError, brokenMessage("broken"))
	s.wantSpec(t, "broken", "v1", 0)
	if err := s.resource("v1").Delete(callCtx(t), "broken", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete broken: %v", err)
	}
	if _, err := s.resource("v2").List(callCtx(t), metav1.ListOptions{}); err != nil {
		t.Errorf("list in v2 once broken is gone: %v", err)
	}
}

// wantStatus checks that err is an API status with code whose message
// holds msg.
func wantStatus(t *testing.T, what string, err error, code int32, msg string) {
	t.Helper()
	st, ok := err.(apierrors.APIStatus)
	if !ok || st.Status().Code != code || !strings.Contains(st.Status().Message, msg) {
		t.Errorf("%s: err = %v, want status %d with a message holding %q", what, err, code, msg)
	}
}

// serviceRefused creates a CRD whose webhook is a service: refused at
// validation, no service being reachable here.
func (s *thingScenario) serviceRefused(t *testing.T) {
	crd := s.crd(t)
	crd.SetName("others." + s.group)
	names := map[string]any{"plural": "others", "singular": "other", "kind": "Other", "listKind": "OtherList"}
	if err := unstructured.SetNestedMap(crd.Object, names, "spec", "names"); err != nil {
		t.Fatal(err)
	}
	service := map[string]any{"namespace": "default", "name": "converter", "path": "/convert"}
	if err := unstructured.SetNestedMap(crd.Object, map[string]any{"service": service}, "spec", "conversion", "webhook", "clientConfig"); err != nil {
		t.Fatal(err)
	}
	_, err := s.dyn.Resource(crdGVR).Create(callCtx(t), crd, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.conversion.webhook.clientConfig.service") {
		t.Errorf("create a CRD with a webhook service: err = %v, want 422 Invalid naming spec.conversion.webhook.clientConfig.service", err)
	}
}
