package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCRDKubectl installs a CustomResourceDefinition with each kubectl
// (v1.32 and current) and drives its custom resources as a user does, on
// every node kind: a single node, a 3-node leader and a 3-node follower.
// Each pass installs the CRD under a group of its own.
func TestCRDKubectl(t *testing.T) {
	targets := startClientTargets(t)
	for _, b := range kubectlBuilds() {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			for _, tg := range targets {
				t.Run(tg.name, func(t *testing.T) {
					name := b.name + "-" + tg.name
					ns := "crd-" + name
					s := &crdScenario{k: newKubectl(t, b.path, tg.addr(), ns), ns: ns, group: crdGroup(name)}
					s.run(t)
				})
			}
		})
	}
}

// crdScenario is one pass of kubectl commands over the Widget CRD in
// group, with widgets in namespace ns; its steps build on each other.
type crdScenario struct {
	k         *kubectl
	ns, group string
}

func (s *crdScenario) run(t *testing.T) {
	t.Cleanup(func() {
		// A failed step may leave the CRD behind; the next scenario on
		// this cluster must not find a second "widgets".
		s.k.run(t, "delete", "crd", s.crdName(), "--ignore-not-found")
	})
	steps := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"install", s.install},
		{"get", s.get},
		{"explain", s.explain},
		{"edit", s.edit},
		{"patch", s.patch},
		{"status", s.status},
		{"scale", s.scale},
		{"server-side-apply", s.serverSideApply},
		{"get-all", s.getAll},
		{"strict-validation", s.strictValidation},
		{"schema-validation", s.schemaValidation},
		{"delete-crd", s.deleteCRD},
	}
	for _, st := range steps {
		t.Run(st.name, st.fn)
	}
}

func (s *crdScenario) crdName() string { return "widgets." + s.group }

// ref is how kubectl names widget name in its messages.
func (s *crdScenario) ref(name string) string {
	return regexp.QuoteMeta("widget." + s.group + "/" + name)
}

// widget writes the manifest of widget name and returns its path.
func (s *crdScenario) widget(t *testing.T, name, spec string) string {
	return s.k.manifest(t, name, crdWidgetManifest(s.group, name, spec))
}

// untilServed runs kubectl until it stops failing because its discovery
// does not know the custom resource yet, and returns the last result.
func (s *crdScenario) untilServed(t *testing.T, args ...string) kubectlResult {
	t.Helper()
	notYet := regexp.MustCompile(`no matches for kind|ensure CRDs are installed first|the server doesn't have a resource type`)
	var res kubectlResult
	pollUntil(t, 15*time.Second, "kubectl to know the widgets of "+s.group, func() error {
		if res = s.k.run(t, args...); res.code != 0 && notYet.MatchString(res.stderr) {
			return fmt.Errorf("%v", res)
		}
		return nil
	})
	return res
}

// install applies the CRD and at once lists and applies widgets, as a
// user does with a manifest holding both.
func (s *crdScenario) install(t *testing.T) {
	s.k.ok(t, "create", "namespace", s.ns)
	crd := s.k.manifest(t, "crd", crdWidgetCRD(t, s.group))
	wantLines(t, s.k.ok(t, "apply", "-f", crd), regexp.QuoteMeta("customresourcedefinition.apiextensions.k8s.io/"+s.crdName())+" created")
	res := s.untilServed(t, "get", "widgets")
	if res.code != 0 || res.stdout != "" || !strings.Contains(res.stderr, "No resources found in "+s.ns+" namespace.") {
		t.Fatalf("get widgets right after the CRD: %v", res)
	}
	w1 := s.widget(t, "w1", "  color: red\n  ports:\n  - name: http\n    port: 80\n")
	res = s.untilServed(t, "apply", "-f", w1)
	if res.code != 0 || !hasLine(res.stdout, s.ref("w1")+" created") {
		t.Fatalf("apply w1: %v", res)
	}
	established := `.status.conditions[?(@.type=="Established")].status`
	if got := s.k.jsonpath(t, "crd", s.crdName(), established); got != "True" {
		t.Errorf("CRD serves widgets but Established = %q", got)
	}
	if got := s.k.ok(t, "get", "widget", "w1", "-o", "jsonpath={.spec.size} {.spec.replicas}"); got != "medium 1" {
		t.Errorf("w1 defaulted spec.size and spec.replicas = %q, want medium 1", got)
	}
}

// get lists by plural, short name and -o wide, where the priority-1
// column shows, and finds the resource in api-resources.
func (s *crdScenario) get(t *testing.T) {
	for _, kind := range []string{"widgets", "wdg", "widgets." + s.group} {
		out := s.k.ok(t, "get", kind)
		header, _, _ := strings.Cut(out, "\n")
		wantLines(t, header, `NAME\s+COLOR\s+REPLICAS\s+AGE`)
		wantLines(t, out, `w1\s+red\s+1\s+\S+`)
	}
	out := s.k.ok(t, "get", "wdg", "w1", "-o", "wide")
	wantLines(t, out, `NAME\s+COLOR\s+REPLICAS\s+SIZE\s+AGE`, `w1\s+red\s+1\s+medium\s+\S+`)
	wantLines(t, s.k.ok(t, "api-resources", "--api-group="+s.group),
		`widgets\s+wdg\s+`+regexp.QuoteMeta(s.group)+`/v1\s+true\s+Widget`)
}

// explain shows the schema's descriptions, from the published OpenAPI.
func (s *crdScenario) explain(t *testing.T) {
	out := s.k.ok(t, "explain", "widgets.spec")
	wantLines(t, out, `GROUP:\s+`+regexp.QuoteMeta(s.group), `KIND:\s+Widget`, `VERSION:\s+v1`, `FIELD:\s+spec\s+<Object>`,
		`\s+color\s+<string>`, `\s+replicas\s+<integer>`, `\s+ports\s+<\[\]Object>`)
	for _, desc := range []string{"WidgetSpec is what the widget should be.", "The colour of the widget, in lower-case letters.", "How many copies of the widget to run."} {
		if !strings.Contains(out, desc) {
			t.Errorf("explain widgets.spec lacks %q:\n%s", desc, out)
		}
	}
	wantLines(t, s.k.ok(t, "explain", "wdg.spec.ports"), `\s+name\s+<string> -required-`)
}

// edit runs `kubectl edit` with an editor that rewrites the colour.
func (s *crdScenario) edit(t *testing.T) {
	script := filepath.Join(s.k.dir, "editor.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsed -i 's/color: red/color: blue/' \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	ed := *s.k
	ed.env = append(slices.Clone(s.k.env), "KUBE_EDITOR="+script, "EDITOR="+script)
	wantLines(t, ed.ok(t, "edit", "widget", "w1"), s.ref("w1")+" edited")
	if got := s.k.jsonpath(t, "widget", "w1", ".spec.color"); got != "blue" {
		t.Errorf("after edit, spec.color = %q, want blue", got)
	}
}

func (s *crdScenario) patch(t *testing.T) {
	wantLines(t, s.k.ok(t, "patch", "wdg", "w1", "--type", "merge", "-p", `{"spec":{"color":"green"}}`), s.ref("w1")+" patched")
	wantLines(t, s.k.ok(t, "patch", "wdg", "w1", "--type", "json", "-p", `[{"op":"replace","path":"/spec/replicas","value":3}]`), s.ref("w1")+" patched")
	if got := s.k.ok(t, "get", "wdg", "w1", "-o", "jsonpath={.spec.color} {.spec.replicas}"); got != "green 3" {
		t.Errorf("after the patches, spec.color and spec.replicas = %q, want green 3", got)
	}
	wantLines(t, s.k.ok(t, "patch", "wdg", "w1", "--type", "merge", "-p", `{"spec":{"color":"green"}}`), s.ref("w1")+` patched \(no change\)`)
	// Custom resources take no strategic merge patch (kubectl's default).
	s.k.fails(t, regexp.QuoteMeta(`error: application/strategic-merge-patch+json is not supported by `+s.group+`/v1, Kind=Widget: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`),
		"patch", "wdg", "w1", "-p", `{"spec":{"color":"red"}}`)
}

// status writes through the status subresource (spec is kept) and
// through the resource (status is kept).
func (s *crdScenario) status(t *testing.T) {
	gen := s.k.jsonpath(t, "wdg", "w1", ".metadata.generation")
	wantLines(t, s.k.ok(t, "patch", "wdg", "w1", "--subresource", "status", "--type", "merge",
		"-p", `{"status":{"phase":"Ready","replicas":3,"selector":"app=w1"},"spec":{"color":"black"}}`), s.ref("w1")+" patched")
	got := s.k.ok(t, "get", "wdg", "w1", "-o", "jsonpath={.status.phase} {.status.replicas} {.spec.color} {.metadata.generation}")
	if want := "Ready 3 green " + gen; got != want {
		t.Errorf("after a status patch, status.phase status.replicas spec.color generation = %q, want %q", got, want)
	}
	wantLines(t, s.k.ok(t, "patch", "wdg", "w1", "--type", "merge", "-p", `{"status":{"phase":"Lost"}}`), s.ref("w1")+` patched \(no change\)`)
}

// scale scales through the scale subresource and reads it raw.
func (s *crdScenario) scale(t *testing.T) {
	wantLines(t, s.k.ok(t, "scale", "wdg", "w1", "--replicas=5"), s.ref("w1")+" scaled")
	if got := s.k.jsonpath(t, "wdg", "w1", ".spec.replicas"); got != "5" {
		t.Errorf("after scale, spec.replicas = %q, want 5", got)
	}
	var sc struct {
		Kind, APIVersion string
		Metadata         struct{ Name, Namespace string }
		Spec             struct{ Replicas int }
		Status           struct {
			Replicas int
			Selector string
		}
	}
	raw := s.k.ok(t, "get", "--raw", "/apis/"+s.group+"/v1/namespaces/"+s.ns+"/widgets/w1/scale")
	if err := json.Unmarshal([]byte(raw), &sc); err != nil {
		t.Fatalf("scale subresource: %v\n%s", err, raw)
	}
	if sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1" || sc.Metadata.Name != "w1" || sc.Metadata.Namespace != s.ns ||
		sc.Spec.Replicas != 5 || sc.Status.Replicas != 3 || sc.Status.Selector != "app=w1" {
		t.Errorf("scale subresource = %s, want an autoscaling/v1 Scale of w1 with spec.replicas 5, status.replicas 3, status.selector app=w1", raw)
	}
}

// serverSideApply has two field managers each own one entry of the
// list-map spec.ports.
func (s *crdScenario) serverSideApply(t *testing.T) {
	a := s.k.manifest(t, "ssa-a", crdWidgetManifest(s.group, "ssa", "  color: red\n  ports:\n  - name: http\n    port: 80\n"))
	b := s.k.manifest(t, "ssa-b", crdWidgetManifest(s.group, "ssa", "  ports:\n  - name: metrics\n    port: 9090\n"))
	wantLines(t, s.k.ok(t, "apply", "--server-side", "--field-manager=e2e-a", "-f", a), s.ref("ssa")+" serverside-applied")
	wantLines(t, s.k.ok(t, "apply", "--server-side", "--field-manager=e2e-b", "-f", b), s.ref("ssa")+" serverside-applied")
	ports := `jsonpath={range .spec.ports[*]}{.name}={.port} {end}`
	if got := s.k.ok(t, "get", "wdg", "ssa", "-o", ports); got != "http=80 metrics=9090 " {
		t.Errorf("after two managers applied, spec.ports = %q, want http=80 metrics=9090", got)
	}
	takeover := s.k.manifest(t, "ssa-b", crdWidgetManifest(s.group, "ssa", "  ports:\n  - name: http\n    port: 8080\n  - name: metrics\n    port: 9090\n"))
	s.k.fails(t, `(?s)Apply failed with 1 conflict: conflict with "e2e-a": \.spec\.ports\[name="http"\]\.port`,
		"apply", "--server-side", "--field-manager=e2e-b", "-f", takeover)
	wantLines(t, s.k.ok(t, "apply", "--server-side", "--field-manager=e2e-b", "--force-conflicts", "-f", takeover), s.ref("ssa")+" serverside-applied")
	if got := s.k.ok(t, "get", "wdg", "ssa", "-o", ports); got != "http=8080 metrics=9090 " {
		t.Errorf("after a forced apply, spec.ports = %q, want http=8080 metrics=9090", got)
	}
	if got := s.k.jsonpath(t, "wdg", "ssa", ".metadata.managedFields[*].manager"); got != "e2e-a e2e-b" {
		t.Errorf("managers = %q, want e2e-a e2e-b", got)
	}
}

// getAll finds the widgets under the category all.
func (s *crdScenario) getAll(t *testing.T) {
	wantLines(t, s.k.ok(t, "get", "all", "-o", "name"), s.ref("w1"), s.ref("ssa"))
}

// strictValidation applies a widget with an undeclared field: kubectl
// asks for Strict validation and fails; asked to warn, it creates the
// widget without the field.
func (s *crdScenario) strictValidation(t *testing.T) {
	bad := s.widget(t, "bad", "  colour: red\n")
	t.Run("strict", func(t *testing.T) {
		s.k.fails(t, `Error from server \(BadRequest\): error when creating ".*bad\.yaml": .*strict decoding error: unknown field "spec\.colour"`, "apply", "-f", bad)
		s.k.fails(t, `\(NotFound\)`, "get", "wdg", "bad")
	})
	t.Run("kube-message", func(t *testing.T) {
		// kube-apiserver's create handler prefixes a strict decoding
		// error with the kind it could not decode (transformDecodeError).
		s.k.fails(t, `Error from server \(BadRequest\): error when creating ".*bad\.yaml": Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec\.colour"`, "apply", "-f", bad)
	})
	t.Run("warn", func(t *testing.T) {
		res := s.k.run(t, "apply", "--validate=warn", "-f", bad)
		if res.code != 0 || !hasLine(res.stdout, s.ref("bad")+" created") || !hasLine(res.stderr, `Warning: unknown field "spec\.colour"`) {
			t.Fatalf("want exit 0, the widget created and a warning naming spec.colour, got %v", res)
		}
		if got := s.k.jsonpath(t, "wdg", "bad", ".spec"); strings.Contains(got, "colour") {
			t.Errorf("spec kept the undeclared field: %s", got)
		}
	})
}

// schemaValidation breaks the CEL rule, a pattern and a minimum, on
// create and through the scale subresource.
func (s *crdScenario) schemaValidation(t *testing.T) {
	cel := s.widget(t, "cel", "  replicas: 2\n  minReplicas: 3\n")
	s.k.fails(t, `The Widget "cel" is invalid: spec: Invalid value: `+crdCELMessage, "apply", "-f", cel)
	res := s.k.run(t, "apply", "-f", s.widget(t, "pat", "  color: Red\n  replicas: -1\n"))
	if res.code != 1 {
		t.Fatalf("want exit 1, got %v", res)
	}
	wantLines(t, res.stderr, `The Widget "pat" is invalid:\s*`,
		regexp.QuoteMeta(`* spec.color: Invalid value: "Red": spec.color in body should match '^[a-z]+$'`),
		regexp.QuoteMeta(`* spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0`))
	s.k.ok(t, "patch", "wdg", "w1", "--type", "merge", "-p", `{"spec":{"minReplicas":4}}`)
	s.k.fails(t, `The Widget "w1" is invalid: spec: Invalid value: `+crdCELMessage, "scale", "wdg", "w1", "--replicas=2")
	if got := s.k.jsonpath(t, "wdg", "w1", ".spec.replicas"); got != "5" {
		t.Errorf("after a refused scale, spec.replicas = %q, want 5", got)
	}
}

// deleteCRD deletes the CRD: its widgets go with it, the resource leaves
// discovery, and a CRD created again under the same name starts empty.
func (s *crdScenario) deleteCRD(t *testing.T) {
	wantLines(t, s.k.ok(t, "delete", "crd", s.crdName()), regexp.QuoteMeta(`customresourcedefinition.apiextensions.k8s.io "`+s.crdName()+`" deleted`)+`.*`)
	pollUntil(t, 10*time.Second, "widgets to leave discovery", func() error {
		if out := s.k.ok(t, "api-resources", "--api-group="+s.group, "-o", "name"); out != "" {
			return fmt.Errorf("api-resources --api-group=%s lists %q", s.group, out)
		}
		return nil
	})
	s.k.fails(t, `Error from server \(NotFound\)`, "get", "--raw", "/apis/"+s.group+"/v1/namespaces/"+s.ns+"/widgets")
	s.k.fails(t, `error: the server doesn't have a resource type "widgets"`, "get", "widgets")

	wantLines(t, s.k.ok(t, "apply", "-f", s.k.manifest(t, "crd", crdWidgetCRD(t, s.group))),
		regexp.QuoteMeta("customresourcedefinition.apiextensions.k8s.io/"+s.crdName())+" created")
	res := s.untilServed(t, "get", "widgets", "-A")
	if res.code != 0 || res.stdout != "" || !strings.Contains(res.stderr, "No resources found") {
		t.Errorf("widgets after the CRD was created again: %v", res)
	}
}
