package systemd

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
