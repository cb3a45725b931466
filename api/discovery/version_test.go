package discovery

import (
	"os/exec"
	"strings"
	"testing"
)

// TestKubeVersionMatchesModules keeps /version in step with the
// Kubernetes libraries the server is built with.
func TestKubeVersionMatchesModules(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/apimachinery").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if want := "v1." + strings.TrimPrefix(mod, "v0."); KubeVersion != want {
		t.Fatalf("KubeVersion = %s, but k8s.io/apimachinery is %s: want %s", KubeVersion, mod, want)
	}
}

func TestInfoReportsMinor(t *testing.T) {
	info := Info()
	if info.Major != "1" || info.Minor != "37" || !strings.HasPrefix(info.GitVersion, "v1.37.") {
		t.Fatalf("Info() = %+v, want major 1, minor 37, gitVersion v1.37.x", info)
	}
}
