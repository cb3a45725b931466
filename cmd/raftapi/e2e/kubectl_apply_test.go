package e2e

import (
	"strings"
	"testing"
)

// serverSideApply drives `kubectl apply --server-side`: create, a
// conflict with a field another manager set, --force-conflicts, and the
// migration of an object managed by client-side apply.
func (s *kubectlScenario) serverSideApply(t *testing.T) {
	m := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: \"1\"\n  b: \"1\"\n"
	path := s.k.manifest(t, "ssa", m)
	wantLines(t, s.k.ok(t, "apply", "--server-side", "-f", path), "configmap/ssa serverside-applied")
	if got := s.k.jsonpath(t, "configmap", "ssa", `.metadata.managedFields[?(@.manager=="kubectl")].operation`); got != "Apply" {
		t.Errorf("managedFields operation of kubectl = %q, want Apply", got)
	}

	s.k.ok(t, "patch", "configmap", "ssa", "--type=merge", "-p", `{"data":{"a":"other"}}`, "--field-manager=intruder")
	m2 := strings.Replace(m, `a: "1"`, `a: "2"`, 1)
	path = s.k.manifest(t, "ssa", m2)
	s.k.fails(t, `(?s)Apply failed with 1 conflict: conflict with "intruder".*\.data\.a`, "apply", "--server-side", "-f", path)
	if got := s.k.jsonpath(t, "configmap", "ssa", ".data.a"); got != "other" {
		t.Errorf("after a refused apply, .data.a = %q, want other", got)
	}
	wantLines(t, s.k.ok(t, "apply", "--server-side", "--force-conflicts", "-f", path), "configmap/ssa serverside-applied")
	if got := s.k.jsonpath(t, "configmap", "ssa", ".data.a"); got != "2" {
		t.Errorf("after --force-conflicts, .data.a = %q, want 2", got)
	}

	// Client-side apply first; server-side apply then takes the fields
	// over, so a key dropped from the manifest is removed.
	csa := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\ndata:\n  keep: \"1\"\n  drop: \"1\"\n"
	wantLines(t, s.k.ok(t, "apply", "-f", s.k.manifest(t, "migrate", csa)), "configmap/migrate created")
	ssa := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\ndata:\n  keep: \"2\"\n"
	wantLines(t, s.k.ok(t, "apply", "--server-side", "-f", s.k.manifest(t, "migrate", ssa)), "configmap/migrate serverside-applied")
	if got := s.k.jsonpath(t, "configmap", "migrate", ".data"); !strings.Contains(got, `"keep":"2"`) || strings.Contains(got, "drop") {
		t.Errorf("after migrating to server-side apply, .data = %s, want keep=2 and no drop", got)
	}
	if got := s.k.jsonpath(t, "configmap", "migrate", `.metadata.managedFields[*].manager`); strings.Contains(got, "kubectl-client-side-apply") {
		t.Errorf("managers after migration %q still include kubectl-client-side-apply", got)
	}
}

// diff drives `kubectl diff`, client- and server-side: exit 0 without
// changes, 1 with the change shown, and nothing stored either way.
func (s *kubectlScenario) diff(t *testing.T) {
	m := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: df\ndata:\n  a: \"1\"\n"
	path := s.k.manifest(t, "df", m)
	s.k.ok(t, "apply", "--server-side", "-f", path)
	rv := s.k.jsonpath(t, "configmap", "df", ".metadata.resourceVersion")
	for _, side := range []string{"--server-side=true", "--server-side=false"} {
		t.Run(strings.TrimPrefix(side, "--"), func(t *testing.T) {
			s.k.ok(t, "diff", side, "-f", path)
			changed := s.k.manifest(t, "df-changed", strings.Replace(m, `a: "1"`, `a: "2"`, 1))
			res := s.k.run(t, "diff", side, "-f", changed)
			if res.code != 1 || !hasLine(res.stdout, `-\s+a: "1"`) || !hasLine(res.stdout, `\+\s+a: "2"`) {
				t.Fatalf("want exit 1 and the change, got %v", res)
			}
			if got := s.k.jsonpath(t, "configmap", "df", ".metadata.resourceVersion"); got != rv {
				t.Errorf("kubectl diff changed resourceVersion %s → %s", rv, got)
			}
		})
	}
}
