// Package deploytest holds what the tests of the deployment artifacts
// share: the raftapi binary they run and the flags of its serve command.
package deploytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The raftapi binary the tests run: $RAFTAPI_BIN (make test-deploy sets
// it to bin/raftapi), else one built from ./cmd/raftapi once per test
// binary.
var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// Main runs the tests and removes the binary built for them; a package's
// TestMain calls os.Exit(deploytest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	return code
}

// Binary returns the path of the raftapi binary under test.
func Binary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("RAFTAPI_BIN"); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "raftapi-deploy-test"); buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "raftapi")
		cmd := exec.Command("go", "build", "-o", builtBin, "./cmd/raftapi")
		cmd.Dir = repoRoot()
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

// repoRoot is the repository's root: three levels above this file.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// helpFlag matches a flag in "raftapi serve --help": cobra's
// "      --name string" or "  -n, --name".
var helpFlag = regexp.MustCompile(`(?m)^\s+(?:-[A-Za-z], )?--?([a-z0-9][a-z0-9-]*)\b`)

// ServeFlags returns the flags "raftapi serve --help" lists (in its
// "Flags:" section, not in its examples).
func ServeFlags(t *testing.T) map[string]bool {
	t.Helper()
	// Help exits 0; the output is what matters, not the status.
	out, _ := exec.Command(Binary(t), "serve", "--help").CombinedOutput()
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
