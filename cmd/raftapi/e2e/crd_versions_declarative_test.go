package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// gadgetScenario drives the three-version gadgets CRD and its
// ConversionPolicy with kubectl through one node and client-go through
// another (the same on a single node); its steps build on each other.
type gadgetScenario struct {
	k         *kubectl
	kAddr     string   // the node kubectl talks to
	nodes     []string // every node of the cluster
	dyn       dynamic.Interface
	warnings  *warningLog // what dyn was warned of
	ns, group string
	gadgets   []gadget                              // written so far, in order
	created   map[string]*unstructured.Unstructured // client-go's create answers
}

// runGadgets runs the declarative conversion scenario: kubectl through
// the node at kAddr, client-go through the node at cgAddr, in a group of
// its own named after name. nodes are the cluster's nodes. Its last step
// watches in v1alpha1 through kAddr and in v1 through cgAddr.
func runGadgets(t *testing.T, kubectlBin, kAddr, cgAddr string, nodes []string, name string) {
	log := &warningLog{}
	s := &gadgetScenario{
		k: newKubectl(t, kubectlBin, kAddr, name), kAddr: kAddr, nodes: nodes,
		dyn: dynamicWithWarnings(t, cgAddr, log), warnings: log,
		ns: name, group: crdVersionsGroupOf(name), created: map[string]*unstructured.Unstructured{},
	}
	steps := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"install", s.install},
		{"kubectl-create", s.kubectlCreate},
		{"clientgo-create", s.clientGoCreate},
		{"clientgo-read", s.clientGoRead},
		{"lists", s.lists},
		{"kubectl-lossless", s.kubectlLossless},
		{"deprecation-warning", s.deprecationWarning},
		{"printer-columns", s.printerColumns},
		{"field-selectors", s.fieldSelectors},
		{"write-through-other-versions", s.writeThroughOtherVersions},
		{"watch-two-versions", func(t *testing.T) { s.watchGadgets(t, kAddr, cgAddr) }},
	}
	for _, st := range steps {
		if !t.Run(st.name, st.fn) && st.name == "install" {
			return
		}
	}
}

// resource is the gadgets resource in version, in the scenario's
// namespace.
func (s *gadgetScenario) resource(version string) dynamic.ResourceInterface {
	return s.dyn.Resource(gadgetGVR(s.group, version)).Namespace(s.ns)
}

// kind is how kubectl names gadgets in version.
func (s *gadgetScenario) kind(version string) string { return "gadgets." + version + "." + s.group }

// install applies the CRD and its ConversionPolicy with kubectl and
// waits until every node serves every version and converts by the
// policy.
func (s *gadgetScenario) install(t *testing.T) {
	s.k.ok(t, "create", "namespace", s.ns)
	crd := s.k.manifest(t, "gadgets-crd", crdVersionsFixture(t, "gadgets.yaml", s.group))
	wantLines(t, s.k.ok(t, "apply", "-f", crd), regexp.QuoteMeta("customresourcedefinition.apiextensions.k8s.io/gadgets."+s.group)+" created")
	crdVersionsWaitServed(t, s.group, "gadgets", s.ns, gadgetVersions, s.nodes...)
	policy := s.k.manifest(t, "gadgets-policy", crdVersionsFixture(t, "gadgets-policy.yaml", s.group))
	wantLines(t, s.k.ok(t, "apply", "-f", policy), regexp.QuoteMeta("conversionpolicy.raftapi.io/gadgets."+s.group)+" created")
	s.waitPolicy(t)
}

// waitPolicy writes a probe gadget in v1beta1 and waits until every node
// reads it in v1 as the policy says. Each node's serving loop takes the
// policy up from its watch, moments after applying it: the node the
// policy was applied through gets a few seconds, the others ten.
func (s *gadgetScenario) waitPolicy(t *testing.T) {
	probe := newGadget("probe", "v1beta1", "probe", 1, "")
	if _, err := s.resource("v1beta1").Create(callCtx(t), probe.object(s.group), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create probe: %v", err)
	}
	read := func(addr string) error {
		u, err := dynamicWithWarnings(t, addr, &warningLog{}).Resource(gadgetGVR(s.group, "v1")).Namespace(s.ns).Get(callCtx(t), "probe", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got, want := canonicalJSON(u.Object["spec"]), canonicalJSON(probe.specs["v1"]); got != want {
			return fmt.Errorf("probe read in v1 has spec %s, want %s", got, want)
		}
		return nil
	}
	pollUntil(t, 3*time.Second, "the ConversionPolicy to convert on "+s.kAddr+", the node it was applied through", func() error { return read(s.kAddr) })
	for _, addr := range s.nodes {
		pollUntil(t, 10*time.Second, "the ConversionPolicy to convert on "+addr, func() error { return read(addr) })
	}
	if err := s.resource("v1beta1").Delete(callCtx(t), "probe", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete probe: %v", err)
	}
}

// kubectlCreate applies a gadget in each version; only the deprecated
// v1alpha1 draws the deprecation warning.
func (s *gadgetScenario) kubectlCreate(t *testing.T) {
	for _, g := range []gadget{
		newGadget("ka", "v1alpha1", "blue", 2, "kept across versions"),
		newGadget("kb", "v1beta1", "red", 3, ""),
		newGadget("kc", "v1", "green", 4, "set by kubectl"),
	} {
		res := s.k.run(t, "apply", "-f", s.k.manifest(t, g.name, g.manifest(s.group)))
		if res.code != 0 || !hasLine(res.stdout, regexp.QuoteMeta("gadget."+s.group+"/"+g.name)+" created") {
			t.Fatalf("apply %s in %s: %v", g.name, g.version, res)
		}
		s.checkKubectlWarning(t, g.version, res)
		s.gadgets = append(s.gadgets, g)
	}
}

// deprecationText is the deprecationWarning of v1alpha1 in the fixture.
func (s *gadgetScenario) deprecationText() string {
	return s.group + "/v1alpha1 Gadget is deprecated; use " + s.group + "/v1 Gadget"
}

// checkKubectlWarning checks that kubectl printed the deprecation
// warning for a request to v1alpha1 and no warning for another version.
func (s *gadgetScenario) checkKubectlWarning(t *testing.T, version string, res kubectlResult) {
	t.Helper()
	warned := hasLine(res.stderr, regexp.QuoteMeta("Warning: "+s.deprecationText()))
	switch {
	case version == "v1alpha1" && !warned:
		t.Errorf("kubectl printed no deprecation warning for a request to v1alpha1: %v", res)
	case version != "v1alpha1" && strings.Contains(res.stderr, "Warning:"):
		t.Errorf("kubectl printed a warning for a request to %s: %v", version, res)
	}
}

// clientGoCreate creates a gadget in each version with the dynamic
// client; the answer is the object in the version written, as written.
func (s *gadgetScenario) clientGoCreate(t *testing.T) {
	for _, g := range []gadget{
		newGadget("ga", "v1alpha1", "yellow", 5, "kept by client-go"),
		newGadget("gb", "v1beta1", "white", 6, ""),
		newGadget("gc", "v1", "black", 7, "set by client-go"),
	} {
		n := s.warnings.count()
		created, err := s.resource(g.version).Create(callCtx(t), g.object(s.group), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s in %s: %v", g.name, g.version, err)
		}
		g.check(t, "client-go create answer", s.group, g.version, created.Object)
		s.checkClientGoWarning(t, g.version, s.warnings.since(n))
		s.created[g.name] = created
		s.gadgets = append(s.gadgets, g)
	}
}

// checkClientGoWarning checks the warnings client-go received for one
// request to version.
func (s *gadgetScenario) checkClientGoWarning(t *testing.T, version string, got []string) {
	t.Helper()
	var want []string
	if version == "v1alpha1" {
		want = []string{s.deprecationText()}
	}
	if !slices.Equal(got, want) {
		t.Errorf("client-go was warned %q for a request to %s, want %q", got, version, want)
	}
}

// clientGoRead reads every gadget in every version; in the version it
// was written in, a gadget created by client-go reads back exactly as
// its create answer.
func (s *gadgetScenario) clientGoRead(t *testing.T) {
	for _, g := range s.gadgets {
		for _, v := range gadgetVersions {
			u, err := s.resource(v).Get(callCtx(t), g.name, metav1.GetOptions{})
			if err != nil {
				t.Errorf("get %s in %s: %v", g.name, v, err)
				continue
			}
			g.check(t, "client-go get", s.group, v, u.Object)
			if c := s.created[g.name]; c != nil && v == g.version && canonicalJSON(u.Object) != canonicalJSON(c.Object) {
				t.Errorf("%s read in %s is\n%s\nbut was created as\n%s", g.name, v, canonicalJSON(u.Object), canonicalJSON(c.Object))
			}
		}
	}
}

// lists lists the gadgets in every version, with client-go and kubectl:
// every gadget, each converted.
func (s *gadgetScenario) lists(t *testing.T) {
	for _, v := range gadgetVersions {
		list, err := s.resource(v).List(callCtx(t), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list in %s: %v", v, err)
		}
		if got := list.GetAPIVersion() + " " + list.GetKind(); got != s.group+"/"+v+" GadgetList" {
			t.Errorf("list in %s is a %s", v, got)
		}
		var items []map[string]any
		for _, it := range list.Items {
			items = append(items, it.Object)
		}
		s.checkItems(t, "client-go list in "+v, v, items)

		var kl struct{ Items []map[string]any }
		out := s.k.ok(t, "get", s.kind(v), "-o", "json")
		if err := json.Unmarshal([]byte(out), &kl); err != nil {
			t.Fatalf("kubectl get %s -o json: %v\n%s", s.kind(v), err, out)
		}
		s.checkItems(t, "kubectl get "+s.kind(v), v, kl.Items)
	}
}

// checkItems checks that items are every gadget, in version.
func (s *gadgetScenario) checkItems(t *testing.T, where, version string, items []map[string]any) {
	t.Helper()
	byName := map[string]map[string]any{}
	var names []string
	for _, it := range items {
		name := fmt.Sprint(it["metadata"].(map[string]any)["name"])
		byName[name] = it
		names = append(names, name)
	}
	want := gadgetNames(s.gadgets)
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Errorf("%s lists %v, want %v", where, names, want)
	}
	for _, g := range s.gadgets {
		if it := byName[g.name]; it != nil {
			g.check(t, where, s.group, version, it)
		}
	}
}

// kubectlLossless reads ka, written in v1alpha1 with a field no later
// version holds, back in v1alpha1 with kubectl: as written.
func (s *gadgetScenario) kubectlLossless(t *testing.T) {
	g := s.gadgets[0]
	var u map[string]any
	out := s.k.ok(t, "get", s.kind(g.version), g.name, "-o", "json")
	if err := json.Unmarshal([]byte(out), &u); err != nil {
		t.Fatalf("kubectl get -o json: %v\n%s", err, out)
	}
	g.check(t, "kubectl get", s.group, g.version, u)
	for _, v := range gadgetVersions {
		res := s.k.run(t, "get", s.kind(v), g.name, "-o", "jsonpath={.spec}")
		if res.code != 0 {
			t.Fatalf("kubectl get %s in %s: %v", g.name, v, res)
		}
		var spec any
		if err := json.Unmarshal([]byte(res.stdout), &spec); err != nil || canonicalJSON(spec) != canonicalJSON(g.specs[v]) {
			t.Errorf("kubectl get %s in %s: spec %s, want %s", g.name, v, res.stdout, canonicalJSON(g.specs[v]))
		}
	}
}

// deprecationWarning checks kubectl's warnings on reads of each version,
// and client-go's.
func (s *gadgetScenario) deprecationWarning(t *testing.T) {
	for _, v := range gadgetVersions {
		s.checkKubectlWarning(t, v, s.k.run(t, "get", s.kind(v)))
		n := s.warnings.count()
		if _, err := s.resource(v).List(callCtx(t), metav1.ListOptions{}); err != nil {
			t.Fatalf("list in %s: %v", v, err)
		}
		s.checkClientGoWarning(t, v, s.warnings.since(n))
	}
}

// printerColumns checks each version's columns, and that kubectl's
// default version is v1, the highest by kube's priority order.
func (s *gadgetScenario) printerColumns(t *testing.T) {
	// A CRD that lists printer columns gets no Age column of its own.
	cases := []struct {
		kind, header string
		rows         []string
	}{
		{s.kind("v1alpha1"), `NAME\s+SIZE\s+COLOR`, []string{`ka\s+2\s+blue`, `gc\s+7\s+black`}},
		{s.kind("v1beta1"), `NAME\s+REPLICAS\s+COLOR`, []string{`ka\s+2\s+blue`, `gc\s+7\s+black`}},
		{s.kind("v1"), `NAME\s+REPLICAS\s+COLOR\s+SUMMARY`, []string{`ka\s+2\s+blue\s+blue/many`, `gc\s+7\s+black\s+set by client-go`}},
		{"gadgets", `NAME\s+REPLICAS\s+COLOR\s+SUMMARY`, []string{`kb\s+3\s+red\s+red/many`}},
	}
	for _, c := range cases {
		out := s.k.ok(t, "get", c.kind)
		header, _, _ := strings.Cut(out, "\n")
		wantLines(t, header, c.header)
		wantLines(t, out, c.rows...)
	}
}

// fieldSelectors selects by each version's selectable fields: the moved
// colour through v1 and by its old path through v1alpha1; a field
// selectable in one version only is refused in another.
func (s *gadgetScenario) fieldSelectors(t *testing.T) {
	kubectlCases := []struct{ version, selector, want string }{
		{"v1", "spec.style.color=blue", "gadget." + s.group + "/ka"},
		{"v1alpha1", "spec.color=blue", "gadget." + s.group + "/ka"},
		{"v1beta1", "spec.color=red", "gadget." + s.group + "/kb"},
	}
	for _, c := range kubectlCases {
		if got := strings.TrimSpace(s.k.ok(t, "get", s.kind(c.version), "--field-selector", c.selector, "-o", "name")); got != c.want {
			t.Errorf("kubectl get %s --field-selector %s = %q, want %q", s.kind(c.version), c.selector, got, c.want)
		}
	}
	s.k.fails(t, regexp.QuoteMeta(`field label not supported: spec.color`), "get", s.kind("v1"), "--field-selector", "spec.color=blue")

	clientGoCases := []struct{ version, selector, want string }{
		{"v1", "spec.replicas=6", "gb"},
		{"v1alpha1", "spec.size=6", "gb"},
		{"v1", "spec.style.color=yellow", "ga"},
	}
	for _, c := range clientGoCases {
		list, err := s.resource(c.version).List(callCtx(t), metav1.ListOptions{FieldSelector: c.selector})
		if err != nil {
			t.Errorf("list in %s with field selector %s: %v", c.version, c.selector, err)
			continue
		}
		if len(list.Items) != 1 || list.Items[0].GetName() != c.want {
			t.Errorf("list in %s with field selector %s = %d items, want %s alone", c.version, c.selector, len(list.Items), c.want)
		}
	}
	_, err := s.resource("v1alpha1").List(callCtx(t), metav1.ListOptions{FieldSelector: "spec.replicas=6"})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "field label not supported: spec.replicas") {
		t.Errorf("list in v1alpha1 with field selector spec.replicas: err = %v, want BadRequest field label not supported", err)
	}
}

// writeThroughOtherVersions changes gadgets through versions other than
// the one they were written in: a field only v1alpha1 holds survives a
// patch through v1, and an update through v1alpha1 shows in v1.
func (s *gadgetScenario) writeThroughOtherVersions(t *testing.T) {
	wantLines(t, s.k.ok(t, "patch", s.kind("v1"), "ka", "--type", "merge", "-p", `{"spec":{"replicas":8}}`),
		regexp.QuoteMeta("gadget."+s.group+"/ka")+" patched")
	ka := newGadget("ka", "v1alpha1", "blue", 8, "kept across versions")
	u, err := s.resource("v1alpha1").Get(callCtx(t), "ka", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get ka in v1alpha1: %v", err)
	}
	ka.check(t, "after a patch through v1", s.group, "v1alpha1", u.Object)

	kb := s.resource("v1alpha1")
	u, err = kb.Get(callCtx(t), "kb", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get kb in v1alpha1: %v", err)
	}
	if err := unstructured.SetNestedField(u.Object, int64(1), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	if _, err := kb.Update(callCtx(t), u, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update kb through v1alpha1: %v", err)
	}
	want := newGadget("kb", "v1beta1", "red", 1, "")
	for _, v := range gadgetVersions {
		u, err := s.resource(v).Get(callCtx(t), "kb", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get kb in %s: %v", v, err)
		}
		want.check(t, "after an update through v1alpha1", s.group, v, u.Object)
	}
	if _, err := s.resource("v1").Patch(callCtx(t), "gb", types.MergePatchType, []byte(`{"spec":{"style":{"color":"grey"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch gb through v1: %v", err)
	}
	if out := s.k.ok(t, "get", s.kind("v1alpha1"), "gb", "-o", "jsonpath={.spec.color}"); out != "grey" {
		t.Errorf("after spec.style.color was patched to grey through v1, v1alpha1 spec.color = %q", out)
	}
}
