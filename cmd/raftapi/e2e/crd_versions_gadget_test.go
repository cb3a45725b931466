package e2e

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// gadgetVersions are the versions of the gadgets CRD, oldest first.
var gadgetVersions = []string{"v1alpha1", "v1beta1", "v1"}

// conversionAnnotationPrefix starts the annotations in which a converted
// object keeps the fields its version cannot hold.
const conversionAnnotationPrefix = "conversion.raftapi.io/"

// gadget is one Gadget of a scenario: the version it is written in and
// its spec as every version shows it (specs[version] is what is written).
type gadget struct {
	name, version string
	specs         map[string]map[string]any
}

// newGadget is a gadget of colour color and n replicas written in
// version. extra is what only that version holds: v1alpha1's
// spec.legacyNote, or v1's spec.summary, which is otherwise computed as
// "<color>/one" or "<color>/many".
func newGadget(name, version, color string, n int64, extra string) gadget {
	g := gadget{name: name, version: version, specs: map[string]map[string]any{
		"v1alpha1": {"size": n, "color": color},
		"v1beta1":  {"replicas": n, "color": color},
		"v1":       {"replicas": n, "style": map[string]any{"color": color}, "summary": color + "/" + map[bool]string{true: "one", false: "many"}[n == 1]},
	}}
	switch version {
	case "v1alpha1":
		g.specs["v1alpha1"]["legacyNote"] = extra
	case "v1":
		g.specs["v1"]["summary"] = extra
	}
	return g
}

// object is the gadget as written, in group.
func (g gadget) object(group string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/" + g.version, "kind": "Gadget",
		"metadata": map[string]any{"name": g.name, "labels": map[string]any{"gadget": g.name}},
		"spec":     maps.Clone(g.specs[g.version]),
	}}
}

// manifest is the gadget as written, as a JSON manifest for kubectl.
func (g gadget) manifest(group string) string { return canonicalJSON(g.object(group).Object) }

// check compares u, the gadget read in version, with what that version
// must show; where says how it was read.
func (g gadget) check(t *testing.T, where, group, version string, u map[string]any) {
	t.Helper()
	if got, want := fmt.Sprint(u["apiVersion"], " ", u["kind"]), group+"/"+version+" Gadget"; got != want {
		t.Errorf("%s: %s is %s, want %s", where, g.name, got, want)
	}
	if got, want := canonicalJSON(u["spec"]), canonicalJSON(g.specs[version]); got != want {
		t.Errorf("%s: %s (written in %s) has spec %s in %s, want %s", where, g.name, g.version, got, version, want)
	}
	if version != g.version {
		return
	}
	// In the version it was written in, the object is what was written:
	// nothing of the conversion shows.
	meta, _ := u["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	for k := range annotations {
		if strings.HasPrefix(k, conversionAnnotationPrefix) {
			t.Errorf("%s: %s read in %s, the version it was written in, carries annotation %s", where, g.name, version, k)
		}
	}
}

// gadgetGVR is the gadgets resource of group in version.
func gadgetGVR(group, version string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: "gadgets"}
}

// gadgetNames returns the names of gs.
func gadgetNames(gs []gadget) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.name)
	}
	return out
}
