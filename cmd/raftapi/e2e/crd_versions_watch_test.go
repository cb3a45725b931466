package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// gadgetEvent is one expected watch event: its type and the gadget as
// it then was.
type gadgetEvent struct {
	typ watch.EventType
	g   gadget
}

// watchGadgets watches the gadgets of the scenario in v1alpha1 through
// the node at alphaAddr and in v1 through the node at v1Addr, both from
// the resourceVersion of one list, while gadgets are created, changed
// and deleted through every version: both watches see the same events
// in the same order with the same resourceVersions, each in its version.
func (s *gadgetScenario) watchGadgets(t *testing.T, alphaAddr, v1Addr string) {
	list, err := s.resource("v1").List(callCtx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := metav1.ListOptions{ResourceVersion: list.GetResourceVersion(), LabelSelector: "watched=yes"}
	watches := map[string]watch.Interface{}
	for v, addr := range map[string]string{"v1alpha1": alphaAddr, "v1": v1Addr} {
		w, err := dynamicWithWarnings(t, addr, &warningLog{}).Resource(gadgetGVR(s.group, v)).Namespace(s.ns).Watch(ctx, opts)
		if err != nil {
			t.Fatalf("watch in %s through %s: %v", v, addr, err)
		}
		defer w.Stop()
		watches[v] = w
	}
	want := s.watchedWrites(t)
	seen := map[string][]watch.Event{}
	for v, w := range watches {
		for range want {
			seen[v] = append(seen[v], nextEvent(t, w, 15*time.Second))
		}
	}
	for i, e := range want {
		a, b := seen["v1alpha1"][i], seen["v1"][i]
		s.checkEvent(t, i, "v1alpha1", e, a)
		s.checkEvent(t, i, "v1", e, b)
		if ra, rb := eventRV(a), eventRV(b); ra != rb {
			t.Errorf("event %d (%s %s): resourceVersion %s in v1alpha1, %s in v1", i, e.typ, e.g.name, ra, rb)
		}
	}
}

// watchedWrites creates, changes and deletes gadgets labelled
// watched=yes through every version and returns the events a watch must
// see.
func (s *gadgetScenario) watchedWrites(t *testing.T) []gadgetEvent {
	w1 := newGadget("w1", "v1beta1", "red", 1, "")
	w2 := newGadget("w2", "v1alpha1", "blue", 2, "only v1alpha1 holds this")
	for _, g := range []gadget{w1, w2} {
		o := g.object(s.group)
		o.SetLabels(map[string]string{"watched": "yes"})
		if _, err := s.resource(g.version).Create(callCtx(t), o, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s in %s: %v", g.name, g.version, err)
		}
	}
	if _, err := s.resource("v1alpha1").Patch(callCtx(t), "w1", types.MergePatchType, []byte(`{"spec":{"size":3}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch w1 through v1alpha1: %v", err)
	}
	if err := s.resource("v1beta1").Delete(callCtx(t), "w2", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete w2 through v1beta1: %v", err)
	}
	return []gadgetEvent{
		{watch.Added, w1}, {watch.Added, w2},
		{watch.Modified, newGadget("w1", "v1beta1", "red", 3, "")},
		{watch.Deleted, w2},
	}
}

// checkEvent checks event i of the watch in version against want.
func (s *gadgetScenario) checkEvent(t *testing.T, i int, version string, want gadgetEvent, got watch.Event) {
	t.Helper()
	u, ok := got.Object.(*unstructured.Unstructured)
	if !ok || got.Type != want.typ || u.GetName() != want.g.name {
		t.Errorf("event %d of the watch in %s: %s %s, want %s %s", i, version, got.Type, describeEventObject(got.Object), want.typ, want.g.name)
		return
	}
	want.g.check(t, fmt.Sprintf("event %d (%s) of the watch in %s", i, got.Type, version), s.group, version, u.Object)
}

// eventRV is the resourceVersion of a watch event's object.
func eventRV(e watch.Event) string {
	if u, ok := e.Object.(*unstructured.Unstructured); ok {
		return u.GetResourceVersion()
	}
	return "<none>"
}

// describeEventObject names a watch event's object for a message.
func describeEventObject(obj any) string {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return o.GetName()
	case *metav1.Status:
		return fmt.Sprintf("Status %d %s: %s", o.Code, o.Reason, o.Message)
	}
	return fmt.Sprintf("%T", obj)
}
