package audit

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// testPolicy exercises each kind of rule; the first match wins.
const testPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: ["system:kube-proxy"]
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  userGroups: ["auditors"]
  omitStages: [ResponseComplete]
- level: Metadata
  resources:
  - group: ""
    resources: ["secrets", "configmaps/status"]
- level: Request
  resources:
  - group: ""
    resources: ["configmaps"]
    resourceNames: ["watched"]
  omitManagedFields: true
- level: Request
  verbs: ["create", "update"]
  namespaces: ["prod"]
- level: RequestResponse
  resources:
  - group: "coordination.k8s.io"
    resources: ["*/status", "leases/*"]
- level: Metadata
  resources:
  - group: "*"
`

func TestPolicyEvaluation(t *testing.T) {
	p, err := ParsePolicy([]byte(testPolicy))
	if err != nil {
		t.Fatal(err)
	}
	dev := &user.DefaultInfo{Name: "alice", Groups: []string{"dev"}}
	res := func(u user.Info, verb, group, resource, sub, ns, name string) authorizer.Attributes {
		return authorizer.AttributesRecord{User: u, Verb: verb, ResourceRequest: true, APIGroup: group,
			Resource: resource, Subresource: sub, Namespace: ns, Name: name}
	}
	path := func(u user.Info, p string) authorizer.Attributes {
		return authorizer.AttributesRecord{User: u, Verb: "get", Path: p}
	}
	cases := []struct {
		name      string
		attrs     authorizer.Attributes
		level     auditv1.Level
		omitted   []auditv1.Stage
		omitMFlds bool
	}{
		{"user rule first", res(&user.DefaultInfo{Name: "system:kube-proxy", Groups: []string{"auditors"}}, "get", "", "secrets", "", "ns", "s"), auditv1.LevelNone, nil, false},
		{"health prefix", path(dev, "/healthz/ping"), auditv1.LevelNone, nil, false},
		{"exact path", path(dev, "/version"), auditv1.LevelNone, nil, false},
		{"group rule before resource rules", res(&user.DefaultInfo{Name: "a", Groups: []string{"auditors"}}, "get", "", "secrets", "", "ns", "s"),
			auditv1.LevelRequestResponse, []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}, false},
		{"resource", res(dev, "get", "", "secrets", "", "ns", "s"), auditv1.LevelMetadata, []auditv1.Stage{auditv1.StageRequestReceived}, false},
		{"subresource named", res(dev, "update", "", "configmaps", "status", "ns", "c"), auditv1.LevelMetadata, []auditv1.Stage{auditv1.StageRequestReceived}, false},
		{"resource name", res(dev, "get", "", "configmaps", "", "ns", "watched"), auditv1.LevelRequest, []auditv1.Stage{auditv1.StageRequestReceived}, true},
		{"other name falls through to namespace rule", res(dev, "create", "", "configmaps", "", "prod", "x"), auditv1.LevelRequest, []auditv1.Stage{auditv1.StageRequestReceived}, false},
		{"*/status", res(dev, "update", "coordination.k8s.io", "leases", "status", "ns", "l"), auditv1.LevelRequestResponse, []auditv1.Stage{auditv1.StageRequestReceived}, false},
		{"any group", res(dev, "list", "apps", "deployments", "", "ns", ""), auditv1.LevelMetadata, []auditv1.Stage{auditv1.StageRequestReceived}, false},
		{"no rule matches a path", path(dev, "/api"), auditv1.LevelNone, []auditv1.Stage{auditv1.StageRequestReceived}, false},
		{"no user matches only user-less rules", res(nil, "list", "", "configmaps", "", "ns", ""), auditv1.LevelMetadata, []auditv1.Stage{auditv1.StageRequestReceived}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := p.evaluate(tc.attrs)
			slices.Sort(got.omitStages)
			if got.level != tc.level || got.omitManagedFields != tc.omitMFlds {
				t.Errorf("level %s omitManagedFields %v, want %s %v", got.level, got.omitManagedFields, tc.level, tc.omitMFlds)
			}
			if tc.level != auditv1.LevelNone && !cmp.Equal(got.omitStages, tc.omitted) {
				t.Errorf("omitted stages %v, want %v", got.omitStages, tc.omitted)
			}
		})
	}
}

func TestLoadPolicyErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"no rules", "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n", "loading audit policy file: loaded illegal policy with 0 rules: from file"},
		{"unknown level", "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n", `rules[0].level: Unsupported value: "Everything"`},
		{"unknown stage", "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Later]\nrules:\n- level: None\n", `omitStages[0]: Invalid value: "Later": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic`},
		{"no kind", "rules:\n- level: None\n", "loading audit policy file: unknown group version field audit.k8s.io/__internal, Kind=Policy in policy"},
		{"old version", "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n", "loading audit policy file: failed decoding: "},
		{"not yaml", "{", "loading audit policy file: failed decoding: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadPolicy(writeFile(t, "policy.yaml", tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if _, err := LoadPolicy("/nonexistent/policy.yaml"); err == nil || !strings.Contains(err.Error(), `failed to read file path "/nonexistent/policy.yaml"`) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadPolicy(writeFile(t, "policy.json", `{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Metadata"}]}`)); err != nil {
		t.Errorf("JSON policy: %v", err)
	}
}

// TestPolicyThroughHandler: level None writes nothing; omitted stages
// are left out of the log.
func TestPolicyThroughHandler(t *testing.T) {
	a, path := newTestAuditor(t, testPolicy)
	h := a.Handler(withTestAuth(testAPI))
	serve(h, request{method: "GET", target: "/healthz"})
	serve(h, request{method: "GET", target: "/api/v1/namespaces/ns/secrets/s"})
	serve(h, request{method: "GET", target: "/api/v1/namespaces/ns/secrets/s", header: map[string]string{testGroupsHeader: "auditors"}})
	evs := readEvents(t, path)
	// /healthz: none; the secret at Metadata: ResponseComplete only
	// (RequestReceived omitted); the auditor's read: neither stage.
	if len(evs) != 1 || evs[0].Stage != auditv1.StageResponseComplete || evs[0].Level != auditv1.LevelMetadata {
		t.Fatalf("events %+v", evs)
	}
}

func TestOmitManagedFields(t *testing.T) {
	policy := "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitManagedFields: true\nrules:\n- level: RequestResponse\n"
	a, path := newTestAuditor(t, policy)
	serve(a.Handler(withTestAuth(testAPI)), request{method: "GET", target: "/api/v1/namespaces/ns/configmaps/c"})
	evs := readEvents(t, path)
	got := string(evs[len(evs)-1].ResponseObject.Raw)
	if strings.Contains(got, "managedFields") || !strings.Contains(got, `"resourceVersion":"7"`) {
		t.Errorf("responseObject %s", got)
	}
	// Without the option the object is recorded as served.
	a2, path2 := newTestAuditor(t, policyAt("RequestResponse"))
	serve(a2.Handler(withTestAuth(testAPI)), request{method: "GET", target: "/api/v1/namespaces/ns/configmaps/c"})
	evs = readEvents(t, path2)
	if got := string(evs[len(evs)-1].ResponseObject.Raw); got != testConfigMap {
		t.Errorf("responseObject %s, want %s", got, testConfigMap)
	}
}

// TestYAMLBody: a YAML request is recorded as JSON; an update's body
// completes the objectRef.
func TestYAMLBody(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("Request"))
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  uid: u1\n  resourceVersion: \"7\"\ndata:\n  k: v\n"
	serve(a.Handler(withTestAuth(testAPI)), request{method: http.MethodPut, target: "/api/v1/namespaces/ns/configmaps/c", body: body,
		header: map[string]string{"Content-Type": "application/yaml"}})
	evs := readEvents(t, path)
	ev := evs[len(evs)-1]
	want := `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"c","resourceVersion":"7","uid":"u1"}}`
	if ev.RequestObject == nil || string(ev.RequestObject.Raw) != want {
		t.Errorf("requestObject %v, want %s", ev.RequestObject, want)
	}
	if ev.ObjectRef.UID != "u1" || ev.ObjectRef.ResourceVersion != "7" || ev.Verb != "update" {
		t.Errorf("objectRef %+v verb %s", ev.ObjectRef, ev.Verb)
	}
}
