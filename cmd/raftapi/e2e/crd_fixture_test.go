package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The CustomResourceDefinition the crd_* tests install is
// testdata/crd/widgets.yaml: a namespaced Widget with status and scale
// subresources, printer columns (Size only under -o wide), the short name
// wdg, the category all, a selectable field spec.color, defaults (size,
// replicas), a pattern, minimums, a CEL rule and a list-map spec.ports.

// crdFixtureGroup is the group written in the fixture; each scenario
// installs the CRD under a group of its own, so that no two scenarios
// sharing a cluster ever see each other's widgets.
const crdFixtureGroup = "e2e.raftapi.io"

// crdCELMessage is the message of the fixture's CEL rule on spec.
const crdCELMessage = "minReplicas must not exceed replicas"

// crdGroup returns the group of the scenario named name.
func crdGroup(name string) string { return name + "." + crdFixtureGroup }

// crdWidgetCRD returns the fixture CRD manifest, moved to group.
func crdWidgetCRD(t *testing.T, group string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "crd", "widgets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), crdFixtureGroup, group)
}

// crdWidgetManifest returns a Widget manifest; spec is YAML indented by two
// spaces under "spec:".
func crdWidgetManifest(group, name, spec string) string {
	return fmt.Sprintf("apiVersion: %s/v1\nkind: Widget\nmetadata:\n  name: %s\nspec:\n%s", group, name, spec)
}
