package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// TestEventsVersions checks that events are one set of objects served in
// two versions, core/v1 and events.k8s.io/v1: client-go's typed CoreV1
// and EventsV1 clients (the latter over Protobuf) see each other's writes
// in lists and watches with the same resourceVersions, and unmodified
// kubectl prints the same events for `get events` and
// `get events.v1.events.k8s.io`.
func TestEventsVersions(t *testing.T) {
	c := startCluster(t, 1)
	addr := c.nodes[0].api
	core := mustClientset(t, restConfigFor(t, addr))
	protoCfg := restConfigFor(t, addr)
	protoCfg.ContentType = protobuf
	v1 := mustClientset(t, protoCfg)
	const ns = "events-versions"
	mustNamespace(t, core, ns)

	eventsClientGo(t, core, v1, ns)
	for _, b := range kubectlBuilds() {
		t.Run("kubectl-"+b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			eventsKubectl(t, newKubectl(t, b.path, addr, ns), ns, "kc-"+b.name)
		})
	}
}

// eventsAt is when the test events happened: long ago, so that the ages
// kubectl prints do not change between two commands.
var eventsAt = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// coreV1Event is an old-style event as core/v1 recorders write it.
func coreV1Event(ns, name, cm string) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: ns},
		InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: cm},
		Reason:         "Tested",
		Message:        "core/v1 event about " + cm,
		Source:         corev1.EventSource{Component: "e2e", Host: "node-1"},
		FirstTimestamp: metav1.NewTime(eventsAt),
		LastTimestamp:  metav1.NewTime(eventsAt),
		Count:          1,
		Type:           corev1.EventTypeNormal,
	}
}

// eventsV1Event is a new-style event as events.k8s.io/v1 recorders write
// it.
func eventsV1Event(ns, name, cm string) *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: name, Namespace: ns},
		EventTime:           metav1.NewMicroTime(eventsAt),
		ReportingController: "example.com/e2e",
		ReportingInstance:   "e2e-1",
		Action:              "Test",
		Reason:              "Checked",
		Regarding:           corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: cm},
		Note:                "events.k8s.io/v1 event about " + cm,
		Type:                corev1.EventTypeWarning,
	}
}

// eventsClientGo writes an event through each typed client and reads it
// through the other; the kubectl steps then read these events.
func eventsClientGo(t *testing.T, core, v1 *kubernetes.Clientset, ns string) {
	start, err := core.CoreV1().Events(ns).List(callCtx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list core/v1 events: %v", err)
	}
	opts := metav1.ListOptions{ResourceVersion: start.ResourceVersion}
	coreW, err := core.CoreV1().Events(ns).Watch(callCtx(t), opts)
	if err != nil {
		t.Fatalf("watch core/v1 events: %v", err)
	}
	defer coreW.Stop()
	v1W, err := v1.EventsV1().Events(ns).Watch(callCtx(t), opts)
	if err != nil {
		t.Fatalf("watch events.k8s.io/v1 events: %v", err)
	}
	defer v1W.Stop()

	old, err := core.CoreV1().Events(ns).Create(callCtx(t), coreV1Event(ns, "cg-old", "cm1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create core/v1 event: %v", err)
	}
	created, err := v1.EventsV1().Events(ns).Create(callCtx(t), eventsV1Event(ns, "cg-new", "cm2"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create events.k8s.io/v1 event: %v", err)
	}
	for _, w := range []watch.Interface{coreW, v1W} {
		expectEvents(t, w, "cg-old", watch.Added)
		expectEvents(t, w, "cg-new", watch.Added)
	}

	got, err := v1.EventsV1().Events(ns).Get(callCtx(t), "cg-old", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get events.k8s.io/v1 cg-old: %v", err)
	}
	if got.ResourceVersion != old.ResourceVersion || got.Note != old.Message || got.Regarding != old.InvolvedObject || got.DeprecatedCount != old.Count {
		t.Errorf("core/v1 event %+v read as events.k8s.io/v1 %+v", old, got)
	}
	back, err := core.CoreV1().Events(ns).Get(callCtx(t), "cg-new", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get core/v1 cg-new: %v", err)
	}
	if back.ResourceVersion != created.ResourceVersion || back.Message != created.Note || back.ReportingController != created.ReportingController {
		t.Errorf("events.k8s.io/v1 event %+v read as core/v1 %+v", created, back)
	}
	eventsSameLists(t, core, v1, ns)
}

// eventsSameLists lists the events of ns in both versions at one
// resourceVersion and requires the same objects.
func eventsSameLists(t *testing.T, core, v1 *kubernetes.Clientset, ns string) {
	t.Helper()
	cl, err := core.CoreV1().Events(ns).List(callCtx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list core/v1 events: %v", err)
	}
	at := metav1.ListOptions{ResourceVersion: cl.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact}
	vl, err := v1.EventsV1().Events(ns).List(callCtx(t), at)
	if err != nil {
		t.Fatalf("list events.k8s.io/v1 events: %v", err)
	}
	var coreItems, v1Items []string
	for _, e := range cl.Items {
		coreItems = append(coreItems, e.Name+"@"+e.ResourceVersion+" "+e.Message)
	}
	for _, e := range vl.Items {
		v1Items = append(v1Items, e.Name+"@"+e.ResourceVersion+" "+e.Note)
	}
	if vl.ResourceVersion != cl.ResourceVersion || !slices.Equal(coreItems, v1Items) || len(coreItems) != 2 {
		t.Errorf("core/v1 list at %s: %q\nevents.k8s.io/v1 list at %s: %q", cl.ResourceVersion, coreItems, vl.ResourceVersion, v1Items)
	}
}

// eventsV1Manifest is an events.k8s.io/v1 event for `kubectl create -f`.
func eventsV1Manifest(ns, name, cm string) string {
	return fmt.Sprintf(`apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: %s
eventTime: "2024-01-01T00:00:00.000000Z"
reportingController: example.com/e2e
reportingInstance: e2e-1
action: Test
reason: Checked
regarding:
  apiVersion: v1
  kind: ConfigMap
  namespace: %s
  name: %s
note: created by kubectl
type: Normal
`, name, ns, cm)
}

// eventsKubectl drives the two versions with kubectl in namespace ns;
// name is the event it creates and deletes.
func eventsKubectl(t *testing.T, k *kubectl, ns, name string) {
	wantLines(t, k.ok(t, "api-resources"), `events\s+ev\s+v1\s+true\s+Event`, `events\s+ev\s+events\.k8s\.io/v1\s+true\s+Event`)
	wantLines(t, k.ok(t, "api-versions"), `events\.k8s\.io/v1`)

	// explain reads "events.events.k8s.io" as a field path; the group
	// goes in --api-version, as with kube-apiserver.
	out := k.ok(t, "explain", "events", "--api-version=events.k8s.io/v1")
	wantLines(t, out, `KIND:\s+Event`, `(GROUP:\s+events\.k8s\.io|VERSION:\s+events\.k8s\.io/v1)`, `\s+note\s+<string>`, `\s+regarding\s+<ObjectReference>`)

	path := k.manifest(t, name, eventsV1Manifest(ns, name, "cm3"))
	wantLines(t, k.ok(t, "create", "-f", path), `event\.events\.k8s\.io/`+name+` created`)
	if got := k.jsonpath(t, "events", name, ".message"); got != "created by kubectl" {
		t.Errorf("core/v1 message of the event created through events.k8s.io/v1: %q", got)
	}

	for _, args := range [][]string{{}, {"-o", "wide"}, {"-A"}, {"--field-selector", "type=Warning"}} {
		coreOut := k.ok(t, append([]string{"get", "events"}, args...)...)
		v1Out := k.ok(t, append([]string{"get", "events.v1.events.k8s.io"}, args...)...)
		t.Logf("kubectl get events %s:\n%s", strings.Join(args, " "), coreOut)
		if coreOut != v1Out {
			t.Errorf("kubectl get %v differs between versions:\nevents:\n%s\nevents.v1.events.k8s.io:\n%s", args, coreOut, v1Out)
		}
		if !strings.Contains(coreOut, "events.k8s.io/v1 event about cm2") {
			t.Errorf("kubectl get events %v lacks the events.k8s.io/v1 event:\n%s", args, coreOut)
		}
	}
	rvs := func(resource string) string {
		return k.ok(t, "get", resource, "-o", "jsonpath={range .items[*]}{.metadata.name}@{.metadata.resourceVersion} {end}")
	}
	if a, b := rvs("events"), rvs("events.v1.events.k8s.io"); a != b || a == "" {
		t.Errorf("resourceVersions: events %q, events.v1.events.k8s.io %q", a, b)
	}
	wantLines(t, k.ok(t, "get", "events.events.k8s.io", "cg-old", "-o", "yaml"),
		`apiVersion: events\.k8s\.io/v1`, `note: core/v1 event about cm1`, `deprecatedCount: 1`)
	wantLines(t, k.ok(t, "get", "events.v1.events.k8s.io", "--field-selector", "regarding.name=cm2", "-o", "name"),
		`event\.events\.k8s\.io/cg-new`)
	wantLines(t, k.ok(t, "get", "events", "--field-selector", "involvedObject.name=cm2", "-o", "name"), `event/cg-new`)
	wantLines(t, k.ok(t, "get", "events.v1.events.k8s.io", "-A"), `NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE`,
		ns+`\s+\S+\s+Warning\s+Checked\s+configmap/cm2\s+events\.k8s\.io/v1 event about cm2`)
	k.ok(t, "delete", "events.events.k8s.io", name)
	k.fails(t, `NotFound`, "get", "events", name)
}
