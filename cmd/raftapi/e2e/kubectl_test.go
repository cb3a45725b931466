package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKubectl drives every node kind (single node, 3-node leader, 3-node
// follower) with unmodified kubectl binaries, default flags and a plain
// kubeconfig, and checks exit codes and output as a user sees them.
func TestKubectl(t *testing.T) {
	targets := startClientTargets(t)
	for _, b := range kubectlBuilds() {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			for _, tg := range targets {
				t.Run(tg.name, func(t *testing.T) {
					ns := "kc-" + b.name + "-" + tg.name
					s := &kubectlScenario{k: newKubectl(t, b.path, tg.addr(), ns), ns: ns}
					s.run(t)
				})
			}
		})
	}
}

// kubectlScenario is one pass of kubectl commands in namespace ns; its
// steps build on each other.
type kubectlScenario struct {
	k  *kubectl
	ns string
}

func (s *kubectlScenario) run(t *testing.T) {
	steps := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"api-resources", s.apiResources},
		{"api-versions", s.apiVersions},
		{"explain", s.explain},
		{"create-f", s.createFiles},
		{"get-table", s.getTable},
		{"get-yaml-json", s.getYAMLJSON},
		{"get-all-namespaces", s.getAllNamespaces},
		{"get-selector-sort", s.getSelectorSort},
		{"get-watch", s.getWatch},
		{"apply", s.apply},
		{"server-side-apply", s.serverSideApply},
		{"diff", s.diff},
		{"patch", s.patch},
		{"label-annotate", s.labelAnnotate},
		{"delete", s.delete},
		{"delete-cascade", s.deleteCascade},
		{"finalizer", s.finalizer},
		{"missing-namespace", s.missingNamespace},
		{"namespace-deletion", s.namespaceDeletion},
	}
	for _, st := range steps {
		t.Run(st.name, st.fn)
	}
}

func (s *kubectlScenario) apiResources(t *testing.T) {
	out := s.k.ok(t, "api-resources")
	wantLines(t, out,
		`NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND`,
		`configmaps\s+cm\s+v1\s+true\s+ConfigMap`,
		`events\s+ev\s+v1\s+true\s+Event`,
		`namespaces\s+ns\s+v1\s+false\s+Namespace`,
		`secrets\s+v1\s+true\s+Secret`,
		`serviceaccounts\s+sa\s+v1\s+true\s+ServiceAccount`,
		`leases\s+coordination\.k8s\.io/v1\s+true\s+Lease`,
	)
	out = s.k.ok(t, "api-resources", "--namespaced=false", "-o", "name")
	wantLines(t, out, `namespaces`)
	if hasLine(out, `configmaps`) {
		t.Errorf("api-resources --namespaced=false lists configmaps:\n%s", out)
	}
}

func (s *kubectlScenario) apiVersions(t *testing.T) {
	wantLines(t, s.k.ok(t, "api-versions"), `v1`, `coordination\.k8s\.io/v1`)
}

func (s *kubectlScenario) explain(t *testing.T) {
	out := s.k.ok(t, "explain", "configmaps")
	wantLines(t, out, `KIND:\s+ConfigMap`, `VERSION:\s+v1`, `\s+data\s+<map\[string\]string>`, `\s+metadata\s+<ObjectMeta>`)
	out = s.k.ok(t, "explain", "configmaps.data")
	wantLines(t, out, `FIELD:\s+data\s+<map\[string\]string>`)
	if !strings.Contains(out, "Data contains the configuration data.") {
		t.Errorf("explain configmaps.data lacks the field description:\n%s", out)
	}
}

// cm1Manifest is the configmap most steps work on.
const cm1Manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  greeting: hello\n"

// createFiles creates one object of each kind with `kubectl create -f`.
func (s *kubectlScenario) createFiles(t *testing.T) {
	objects := []struct{ name, manifest, want string }{
		{"namespace", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + s.ns + "\n", "namespace/" + s.ns + " created"},
		{"configmap", cm1Manifest, "configmap/cm1 created"},
		{"secret", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s1\ntype: Opaque\nstringData:\n  user: admin\n  pass: hunter2\n", "secret/s1 created"},
		{"lease", "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l1\nspec:\n  holderIdentity: holder-a\n  leaseDurationSeconds: 15\n", "lease.coordination.k8s.io/l1 created"},
		{"serviceaccount", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa1\n", "serviceaccount/sa1 created"},
		{"event", fmt.Sprintf(`apiVersion: v1
kind: Event
metadata:
  name: ev1
involvedObject:
  apiVersion: v1
  kind: ConfigMap
  name: cm1
  namespace: %s
reason: Tested
message: hello from e2e
type: Normal
source:
  component: e2e
firstTimestamp: "2024-01-01T00:00:00Z"
lastTimestamp: "2024-01-01T00:00:00Z"
count: 1
`, s.ns), "event/ev1 created"},
	}
	for _, o := range objects {
		t.Run(o.name, func(t *testing.T) {
			path := s.k.manifest(t, o.name, o.manifest)
			res := s.k.run(t, "create", "-f", path)
			if res.code != 0 || !hasLine(res.stdout, o.want) {
				t.Errorf("want exit 0 and %q, got %v", o.want, res)
				s.k.seed(t, path)
			}
		})
	}
	t.Run("secret-data", func(t *testing.T) {
		if got := s.k.jsonpath(t, "secret", "s1", ".data.user"); got != "YWRtaW4=" {
			t.Errorf("secret s1 .data.user = %q, want base64 of admin", got)
		}
		if got := s.k.jsonpath(t, "secret", "s1", ".stringData"); got != "" {
			t.Errorf("secret s1 kept stringData %q", got)
		}
	})
	t.Run("already-exists", func(t *testing.T) {
		s.k.fails(t, `Error from server \(AlreadyExists\).*configmaps "cm1" already exists`,
			"create", "-f", s.k.manifest(t, "configmap", cm1Manifest))
	})
}

// getTable checks the server-side table columns kubectl prints.
func (s *kubectlScenario) getTable(t *testing.T) {
	cases := []struct {
		args        []string
		header, row string
	}{
		{[]string{"configmaps"}, `NAME\s+DATA\s+AGE`, `cm1\s+1\s+\S+`},
		{[]string{"secrets"}, `NAME\s+TYPE\s+DATA\s+AGE`, `s1\s+Opaque\s+2\s+\S+`},
		{[]string{"namespace", s.ns}, `NAME\s+STATUS\s+AGE`, s.ns + `\s+Active\s+\S+`},
		{[]string{"leases"}, `NAME\s+HOLDER\s+AGE`, `l1\s+holder-a\s+\S+`},
		{[]string{"serviceaccounts"}, `NAME\s+SECRETS\s+AGE`, `sa1\s+0\s+\S+`},
		{[]string{"events"}, `LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE`, `\S+\s+Normal\s+Tested\s+configmap/cm1\s+hello from e2e`},
	}
	for _, c := range cases {
		t.Run(c.args[0], func(t *testing.T) {
			out := s.k.ok(t, append([]string{"get"}, c.args...)...)
			header, _, _ := strings.Cut(out, "\n")
			wantLines(t, header, c.header)
			wantLines(t, out, c.row)
		})
	}
	t.Run("wide", func(t *testing.T) {
		wantLines(t, s.k.ok(t, "get", "configmap", "cm1", "-o", "wide"), `NAME\s+DATA\s+AGE`, `cm1\s+1\s+\S+`)
	})
	t.Run("not-found", func(t *testing.T) {
		s.k.fails(t, `Error from server \(NotFound\): configmaps "nope" not found`, "get", "configmap", "nope")
	})
}

func (s *kubectlScenario) getYAMLJSON(t *testing.T) {
	out := s.k.ok(t, "get", "configmap", "cm1", "-o", "yaml")
	wantLines(t, out, `apiVersion: v1`, `kind: ConfigMap`, `  name: cm1`, `  namespace: `+s.ns,
		`  greeting: hello`, `  resourceVersion: "\d+"`, `  uid: [0-9a-f-]{36}`, `  creationTimestamp: "\S+Z"`)
	var obj struct {
		Kind     string
		Metadata struct{ Name, Namespace, ResourceVersion string }
		Data     map[string]string
	}
	if err := json.Unmarshal([]byte(s.k.ok(t, "get", "configmap", "cm1", "-o", "json")), &obj); err != nil {
		t.Fatalf("kubectl get -o json printed no JSON object: %v", err)
	}
	if obj.Kind != "ConfigMap" || obj.Metadata.Name != "cm1" || obj.Metadata.Namespace != s.ns || obj.Data["greeting"] != "hello" || obj.Metadata.ResourceVersion == "" {
		t.Errorf("kubectl get -o json = %+v", obj)
	}
	var list struct {
		Kind  string
		Items []struct{ Kind string }
	}
	if err := json.Unmarshal([]byte(s.k.ok(t, "get", "secrets", "-o", "json")), &list); err != nil {
		t.Fatalf("kubectl get secrets -o json printed no JSON: %v", err)
	}
	if list.Kind != "List" || len(list.Items) != 1 || list.Items[0].Kind != "Secret" {
		t.Errorf("kubectl get secrets -o json = %+v, want a List of one Secret", list)
	}
}

func (s *kubectlScenario) getAllNamespaces(t *testing.T) {
	out := s.k.ok(t, "get", "configmaps", "-A")
	header, _, _ := strings.Cut(out, "\n")
	wantLines(t, header, `NAMESPACE\s+NAME\s+DATA\s+AGE`)
	wantLines(t, out, s.ns+`\s+cm1\s+1\s+\S+`)
	wantLines(t, s.k.ok(t, "get", "namespaces"), s.ns+`\s+Active\s+\S+`)
}

// getSelectorSort creates c, a, b (in that order) and lists them by label
// and sorted by name.
func (s *kubectlScenario) getSelectorSort(t *testing.T) {
	for _, c := range []struct{ name, label string }{{"sel-c", "web"}, {"sel-a", "web"}, {"sel-b", "db"}} {
		s.k.ok(t, "create", "configmap", c.name, "--from-literal=k=v")
		wantLines(t, s.k.ok(t, "label", "configmap", c.name, "app="+c.label), "configmap/"+c.name+" labeled")
	}
	out := s.k.ok(t, "get", "configmaps", "-l", "app=web")
	if got := firstColumn(out); !slices.Equal(got, []string{"sel-a", "sel-c"}) && !slices.Equal(got, []string{"sel-c", "sel-a"}) {
		t.Errorf("get -l app=web lists %v, want sel-a and sel-c:\n%s", got, out)
	}
	wantLines(t, s.k.ok(t, "get", "configmaps", "-l", "app=db", "-o", "name"), "configmap/sel-b")
	out = s.k.ok(t, "get", "configmaps", "-l", "app", "--sort-by=.metadata.name")
	if got := firstColumn(out); !slices.Equal(got, []string{"sel-a", "sel-b", "sel-c"}) {
		t.Errorf("get --sort-by=.metadata.name lists %v, want sel-a sel-b sel-c:\n%s", got, out)
	}
	out = s.k.ok(t, "get", "configmaps", "-l", "app,app!=web", "-o", "name")
	if strings.TrimSpace(out) != "configmap/sel-b" {
		t.Errorf("get -l app!=web -o name = %q, want configmap/sel-b", out)
	}
}

// getWatch runs `kubectl get -w` and stops it once it has printed the
// existing object and one created while watching.
func (s *kubectlScenario) getWatch(t *testing.T) {
	if out := s.k.ok(t, "get", "configmaps", "-l", "app=web", "-o", "name"); out == "" {
		t.Fatal("no configmap labelled app=web to watch: the get-selector-sort step failed")
	}
	w := s.k.start(t, "get", "configmaps", "-w", "-l", "app=web")
	w.waitLine(t, `NAME\s+DATA\s+AGE`)
	w.waitLine(t, `sel-(a|c)\s+1\s+\S+`)
	s.k.ok(t, "create", "configmap", "sel-w", "--from-literal=a=1", "--from-literal=b=2")
	s.k.ok(t, "label", "configmap", "sel-w", "app=web")
	w.waitLine(t, `sel-w\s+2\s+\S+`)
	w.stop()
}

func (s *kubectlScenario) apply(t *testing.T) {
	m := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ap\ndata:\n  a: \"1\"\n"
	wantLines(t, s.k.ok(t, "apply", "-f", s.k.manifest(t, "ap", m)), "configmap/ap created")
	m = strings.Replace(m, `a: "1"`, `a: "2"`, 1)
	wantLines(t, s.k.ok(t, "apply", "-f", s.k.manifest(t, "ap", m)), "configmap/ap configured")
	wantLines(t, s.k.ok(t, "apply", "-f", s.k.manifest(t, "ap", m)), "configmap/ap unchanged")
	if got := s.k.jsonpath(t, "configmap", "ap", ".data.a"); got != "2" {
		t.Errorf("after apply, .data.a = %q, want 2", got)
	}
	if got := s.k.jsonpath(t, "configmap", "ap", `.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration`); !strings.Contains(got, `"a":"2"`) {
		t.Errorf("last-applied-configuration = %q", got)
	}
}

func (s *kubectlScenario) patch(t *testing.T) {
	cases := []struct{ typ, patch, field, want string }{
		{"json", `[{"op":"add","path":"/data/j","value":"from-json"}]`, ".data.j", "from-json"},
		{"merge", `{"data":{"m":"from-merge"}}`, ".data.m", "from-merge"},
		{"strategic", `{"data":{"s":"from-strategic"}}`, ".data.s", "from-strategic"},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			wantLines(t, s.k.ok(t, "patch", "configmap", "cm1", "--type="+c.typ, "-p", c.patch), "configmap/cm1 patched")
			if got := s.k.jsonpath(t, "configmap", "cm1", c.field); got != c.want {
				t.Errorf("after patch, %s = %q, want %q", c.field, got, c.want)
			}
		})
	}
	t.Run("no-change", func(t *testing.T) {
		wantLines(t, s.k.ok(t, "patch", "configmap", "cm1", "--type=merge", "-p", `{"data":{"m":"from-merge"}}`),
			`configmap/cm1 patched \(no change\)`)
	})
	t.Run("test-op-fails", func(t *testing.T) {
		s.k.fails(t, `The request is invalid: the server rejected our request due to an error in our request`, "patch", "configmap", "cm1", "--type=json", "-p", `[{"op":"test","path":"/data/j","value":"other"}]`)
	})
	t.Run("lease", func(t *testing.T) {
		wantLines(t, s.k.ok(t, "patch", "lease", "l1", "-p", `{"spec":{"holderIdentity":"holder-b"}}`), "lease.coordination.k8s.io/l1 patched")
		if got := s.k.jsonpath(t, "lease", "l1", ".spec.holderIdentity"); got != "holder-b" {
			t.Errorf("lease holder = %q, want holder-b", got)
		}
	})
}

func (s *kubectlScenario) labelAnnotate(t *testing.T) {
	wantLines(t, s.k.ok(t, "label", "configmap", "cm1", "tier=web"), "configmap/cm1 labeled")
	wantLines(t, s.k.ok(t, "annotate", "configmap", "cm1", "note=hi"), "configmap/cm1 annotated")
	if got := s.k.jsonpath(t, "configmap", "cm1", ".metadata.labels.tier"); got != "web" {
		t.Errorf("label tier = %q, want web", got)
	}
	if got := s.k.jsonpath(t, "configmap", "cm1", ".metadata.annotations.note"); got != "hi" {
		t.Errorf("annotation note = %q, want hi", got)
	}
	s.k.fails(t, `already has a value \(web\)`, "label", "configmap", "cm1", "tier=db")
	wantLines(t, s.k.ok(t, "label", "configmap", "cm1", "tier=db", "--overwrite"), "configmap/cm1 labeled")
	wantLines(t, s.k.ok(t, "label", "configmap", "cm1", "tier-"), "configmap/cm1 unlabeled")
	wantLines(t, s.k.ok(t, "label", "secret", "s1", "tier=web"), "secret/s1 labeled")
}

// delete deletes by name, by label and everything; kubectl waits for each
// object to be gone (it watches it by name).
func (s *kubectlScenario) delete(t *testing.T) {
	wantLines(t, s.k.ok(t, "delete", "configmap", "ap"), `configmap "ap" deleted.*`)
	s.k.fails(t, `Error from server \(NotFound\): configmaps "ap" not found`, "get", "configmap", "ap")
	out := s.k.ok(t, "delete", "configmaps", "-l", "app=web")
	wantLines(t, out, `configmap "sel-a" deleted.*`, `configmap "sel-c" deleted.*`, `configmap "sel-w" deleted.*`)
	if hasLine(out, `.*sel-b.*`) {
		t.Errorf("delete -l app=web deleted sel-b:\n%s", out)
	}
	wantLines(t, s.k.ok(t, "get", "configmaps", "-o", "name"), "configmap/sel-b", "configmap/cm1")
	wantLines(t, s.k.ok(t, "delete", "secrets", "--all"), `secret "s1" deleted.*`)
	res := s.k.run(t, "get", "secrets")
	if res.code != 0 || res.stdout != "" || !strings.Contains(res.stderr, "No resources found in "+s.ns+" namespace.") {
		t.Errorf("after delete --all, get secrets: %v", res)
	}
}

func (s *kubectlScenario) deleteCascade(t *testing.T) {
	for _, policy := range []string{"background", "orphan", "foreground"} {
		t.Run(policy, func(t *testing.T) {
			name := "cascade-" + policy
			s.k.ok(t, "create", "configmap", name, "--from-literal=k=v")
			wantLines(t, s.k.ok(t, "delete", "configmap", name, "--cascade="+policy), `configmap "`+name+`" deleted.*`)
			s.k.fails(t, `\(NotFound\)`, "get", "configmap", name)
		})
	}
}

// finalizer deletes an object holding a finalizer: it stays, marked for
// deletion, until a patch removes the finalizer.
func (s *kubectlScenario) finalizer(t *testing.T) {
	m := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers:\n  - e2e.raftapi.io/hold\ndata:\n  k: v\n"
	s.k.seed(t, s.k.manifest(t, "held", m))
	wantLines(t, s.k.ok(t, "delete", "configmap", "held", "--wait=false"), `configmap "held" deleted.*`)
	if got := s.k.jsonpath(t, "configmap", "held", ".metadata.deletionTimestamp"); !strings.HasSuffix(got, "Z") {
		t.Fatalf("held deletionTimestamp = %q, want a timestamp", got)
	}
	if got := s.k.jsonpath(t, "configmap", "held", ".metadata.finalizers[0]"); got != "e2e.raftapi.io/hold" {
		t.Errorf("held finalizers[0] = %q", got)
	}
	wantLines(t, s.k.ok(t, "patch", "configmap", "held", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`), "configmap/held patched")
	pollUntil(t, 10*time.Second, "configmap held to be gone", func() error {
		if res := s.k.run(t, "get", "configmap", "held"); res.code != 1 || !strings.Contains(res.stderr, `configmaps "held" not found`) {
			return fmt.Errorf("%v", res)
		}
		return nil
	})
}

func (s *kubectlScenario) missingNamespace(t *testing.T) {
	missing := s.ns + "-missing"
	s.k.fails(t, `error: failed to create configmap: namespaces "`+missing+`" not found`,
		"create", "configmap", "z", "-n", missing, "--from-literal=a=b")
	s.k.fails(t, `Error from server \(NotFound\): error when creating ".*": namespaces "`+missing+`" not found`,
		"create", "-n", missing, "-f", s.k.manifest(t, "z", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n"))
}

// namespaceDeletion deletes a namespace holding a plain object and one
// with a finalizer: the plain one goes, the namespace stays Terminating
// and refuses new content until the finalizer is removed, then goes.
func (s *kubectlScenario) namespaceDeletion(t *testing.T) {
	ns := s.ns + "-doomed"
	s.k.ok(t, "create", "namespace", ns)
	s.k.ok(t, "create", "configmap", "plain", "-n", ns, "--from-literal=k=v")
	m := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers:\n  - e2e.raftapi.io/hold\n"
	s.k.seed(t, s.k.manifest(t, "held-ns", m), "-n", ns)
	wantLines(t, s.k.ok(t, "delete", "namespace", ns, "--wait=false"), `namespace "`+ns+`" deleted.*`)
	pollUntil(t, 20*time.Second, "plain configmap to be gone from the terminating namespace", func() error {
		if res := s.k.run(t, "get", "configmap", "plain", "-n", ns); res.code != 1 || !strings.Contains(res.stderr, "NotFound") {
			return fmt.Errorf("%v", res)
		}
		return nil
	})
	if got := s.k.jsonpath(t, "namespace", ns, ".status.phase"); got != "Terminating" {
		t.Errorf("namespace %s phase = %q, want Terminating while a finalizer holds its content", ns, got)
	}
	wantLines(t, s.k.ok(t, "get", "namespace", ns), ns+`\s+Terminating\s+\S+`)
	s.k.fails(t, `error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace `+ns+` because it is being terminated`,
		"create", "configmap", "late", "-n", ns, "--from-literal=k=v")
	s.k.ok(t, "patch", "configmap", "held", "-n", ns, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	pollUntil(t, 30*time.Second, "namespace "+ns+" to be gone", func() error {
		if res := s.k.run(t, "get", "namespace", ns); res.code != 1 || !strings.Contains(res.stderr, `namespaces "`+ns+`" not found`) {
			return fmt.Errorf("%v", res)
		}
		return nil
	})
}
