package kubernetes

import (
	"os"
	"testing"

	"github.com/raftapi/raftapi/deploy/internal/deploytest"
)

func TestMain(m *testing.M) { os.Exit(deploytest.Main(m)) }

// raftapiBinary is the raftapi binary under test.
func raftapiBinary(t *testing.T) string { return deploytest.Binary(t) }

// serveFlags returns the flags of raftapi serve.
func serveFlags(t *testing.T) map[string]bool { return deploytest.ServeFlags(t) }

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
