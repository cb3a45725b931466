package kubernetes

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The raftapi binary the tests run: $RAFTAPI_BIN (make test-deploy sets
// it to bin/raftapi), else one built from ./cmd/raftapi once per run.
var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func raftapiBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("RAFTAPI_BIN"); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "raftapi-k8s-test"); buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "raftapi")
		cmd := exec.Command("go", "build", "-o", builtBin, "./cmd/raftapi")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &buildError{err, out}
		}
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/raftapi (or set RAFTAPI_BIN): %v", buildErr)
	}
	return builtBin
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// helpFlag matches a flag in "raftapi serve --help": the flag package's
// "  -name string" and cobra's "      --name string" or "  -n, --name".
var helpFlag = regexp.MustCompile(`(?m)^\s+(?:-[A-Za-z], )?--?([a-z0-9][a-z0-9-]*)\b`)

// serveFlags returns the flags "raftapi serve --help" lists (in its
// "Flags:" section when it has one, not in its examples).
func serveFlags(t *testing.T) map[string]bool {
	t.Helper()
	// Help exits 0; the output is what matters, not the status.
	out, _ := exec.Command(raftapiBinary(t), "serve", "--help").CombinedOutput()
	help := string(out)
	if _, after, ok := strings.Cut(help, "\nFlags:\n"); ok {
		help = after
	}
	flags := map[string]bool{}
	for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
		flags[m[1]] = true
	}
	for _, f := range []string{"name", "data-dir", "listen"} {
		if !flags[f] {
			t.Fatalf("could not read the flags from raftapi serve --help (no --%s):\n%s", f, out)
		}
	}
	return flags
}

// TestArgsAreServeFlags: every flag of the StatefulSet's container is a
// flag of the raftapi binary's serve command.
func TestArgsAreServeFlags(t *testing.T) {
	_, p := loadPod(t)
	known := serveFlags(t)
	for _, f := range p.flags {
		if !known[f.name] {
			t.Errorf("--%s is not a flag of raftapi serve", f.name)
		}
	}
}
