package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecurityEncryptionAtRest starts a node with an aesgcm
// EncryptionConfiguration for secrets, creates secrets holding a
// distinctive plaintext, and looks for it, and for its base64, in every
// file of the data directory and in a saved snapshot: it must be in none.
// A config map's value, not encrypted, is found the same way, so the
// search is shown to work. The test skips while `raftapi serve` has no
// --encryption-provider-config flag.
func TestSecurityEncryptionAtRest(t *testing.T) {
	if help, _ := secRunErr("serve", "-h"); !strings.Contains(help, "-encryption-provider-config") {
		t.Skip("raftapi serve has no --encryption-provider-config flag yet")
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "encryption.yaml")
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["secrets"]
    providers:
      - aesgcm:
          keys:
            - name: key1
              secret: `+base64.StdEncoding.EncodeToString(key)+`
      - identity: {}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	n := secNewNode(t, "enc", false)
	n.start(t, "--encryption-provider-config", config)
	secWaitReady(t, n)
	kc := n.kubeconfig(t)

	plain := "raftapi-plaintext-" + secRandom(t)
	control := "raftapi-control-" + secRandom(t)
	secMustKubectl(t, kc, "create", "secret", "generic", "enc-data", "--from-literal=k="+plain)
	secMustKubectl(t, kc, "create", "secret", "generic", "enc-other", "--from-literal=a="+plain, "--from-literal=b=x")
	secMustKubectl(t, kc, "create", "configmap", "enc-control", "--from-literal=k="+control)
	if got := secMustKubectl(t, kc, "get", "secret", "enc-data", "-o", "jsonpath={.data.k}"); got != base64.StdEncoding.EncodeToString([]byte(plain)) {
		t.Fatalf("the secret reads back as %q", got)
	}
	snapshot := filepath.Join(dir, "snap.db")
	run(t, binary, "snapshot", "save", snapshot, "--kubeconfig", kc)

	files := secFiles(t, n.data)
	files = append(files, snapshot)
	if !secFound(t, files, control) {
		t.Fatalf("the config map's value %q is in no file: the search finds nothing", control)
	}
	for _, needle := range []string{plain, base64.StdEncoding.EncodeToString([]byte(plain))} {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(needle)) {
				t.Errorf("%s holds the secret's plaintext %q", f, needle)
			}
		}
	}
}

// secFiles lists the regular files under dir.
func secFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// secFound reports whether one of files holds needle.
func secFound(t *testing.T, files []string, needle string) bool {
	t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(needle)) {
			return true
		}
	}
	return false
}
