package registrytest

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// NewRegistry returns a registry of the built-in resources over a new
// Storage, for tests of the registry and of its clients. UIDs are
// "uid-1", "uid-2", … unless opts sets NewUID. The storage is closed when
// the test ends.
func NewRegistry(tb testing.TB, opts registry.Options) (*registry.Registry, *Storage) {
	tb.Helper()
	storage := New()
	tb.Cleanup(func() { _ = storage.Close() })
	if opts.NewUID == nil {
		var uids atomic.Int64
		opts.NewUID = func() string { return fmt.Sprintf("uid-%d", uids.Add(1)) }
	}
	return registry.New(resource.NewRegistry(builtin.Resources()...), storage, opts), storage
}
