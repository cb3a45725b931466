package kubernetes

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestKustomizeRenders renders the directory the way kubectl apply -k
// does (kubectl's built-in kustomize, offline), with a token file, and
// checks that what would be applied is what the other tests check: the
// same objects, and the token Secret under the name the StatefulSet
// mounts (no hash suffix).
func TestKustomizeRenders(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH: kustomize rendering not checked")
	}
	dir := t.TempDir()
	files, _ := filepath.Glob("*.yaml")
	for _, f := range files {
		copyFile(t, f, filepath.Join(dir, f))
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("a-test-token-of-enough-length\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(kubectl, "kustomize", dir).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v\n%s", err, stderrOf(err))
	}
	rendered := &manifests{}
	docs, err := splitYAML(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range docs {
		obj, err := decodeStrict(doc)
		if err != nil {
			t.Fatalf("rendered document %d: %v\n%s", i+1, err, doc)
		}
		if err := rendered.add(obj); err != nil {
			t.Fatal(err)
		}
	}
	want := loadManifests(t)
	compareRendered(t, want, rendered)
}

func compareRendered(t *testing.T, want, got *manifests) {
	t.Helper()
	for _, c := range []struct {
		what      string
		want, got any
	}{
		{"StatefulSets", want.statefulSets, got.statefulSets},
		{"Services", byName(want.services), byName(got.services)},
		{"PodDisruptionBudgets", want.pdbs, got.pdbs},
	} {
		if !reflect.DeepEqual(c.want, c.got) {
			t.Errorf("kustomize renders other %s than the files hold:\nfiles:    %+v\nrendered: %+v", c.what, c.want, c.got)
		}
	}
	if len(got.secrets) != len(want.secrets) {
		t.Fatalf("kustomize renders %d Secrets, want %d", len(got.secrets), len(want.secrets))
	}
	for i, s := range got.secrets {
		w := want.secrets[i]
		if s.Name != w.Name || !reflect.DeepEqual(s.Labels, w.Labels) || !sameKeys(s.Data, w.Data) {
			t.Errorf("rendered Secret %s (labels %v, keys %v), want %s (labels %v, keys %v)",
				s.Name, s.Labels, keys(s.Data), w.Name, w.Labels, keys(w.Data))
		}
	}
}

func byName(svcs []*corev1.Service) map[string]*corev1.Service {
	m := map[string]*corev1.Service{}
	for _, s := range svcs {
		m[s.Name] = s
	}
	return m
}

func sameKeys(a, b map[string][]byte) bool { return reflect.DeepEqual(keys(a), keys(b)) }

func keys(m map[string][]byte) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// stderrOf returns what a failed command wrote to stderr, if known.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
