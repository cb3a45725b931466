package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// binary is the raftapi executable under test.
var binary string

func TestMain(m *testing.M) {
	binary = os.Getenv("RAFTAPI_BIN")
	if binary == "" {
		dir, err := os.MkdirTemp("", "raftapi-e2e")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		binary = filepath.Join(dir, "raftapi")
		build := exec.Command("go", "build", "-o", binary, "github.com/raftapi/raftapi/cmd/raftapi")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build raftapi:", err)
			os.Exit(1)
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}
