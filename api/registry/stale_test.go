package registry_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

// staleStorage marks the objects it reads Stale while stale is set, as an
// encrypting Storage does for a value under a key that is no longer the
// first.
type staleStorage struct {
	registry.Storage
	stale atomic.Bool
}

func (s *staleStorage) Get(ctx context.Context, key string, opts registry.ReadOptions) (registry.Object, error) {
	o, err := s.Storage.Get(ctx, key, opts)
	o.Stale = s.stale.Load()
	return o, err
}

// TestUpdateStaleRewrites checks that an update or patch that changes
// nothing is a no-op on a current read and a write on a stale one: the
// rewrite that completes an encryption key rotation.
func TestUpdateStaleRewrites(t *testing.T) {
	storage := &staleStorage{Storage: registrytest.New()}
	var uids atomic.Int64
	reg := registry.New(resource.NewRegistry(builtin.Resources()...), storage, registry.Options{
		Now:    func() time.Time { return now },
		NewUID: func() string { return fmt.Sprintf("uid-%d", uids.Add(1)) },
	})
	s := reg.Store(reg.Resources().Get(configMapsGVR))
	created := createConfigMap(t, s, configMap("a", "k", "v"))

	same, err := update(t, s, created.DeepCopy(), registry.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if same.ResourceVersion != created.ResourceVersion {
		t.Fatalf("unchanged update of a current read wrote: resourceVersion %s, want %s", same.ResourceVersion, created.ResourceVersion)
	}

	storage.stale.Store(true)
	rewritten, err := update(t, s, created.DeepCopy(), registry.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rv(t, rewritten) <= rv(t, created) || rewritten.Data["k"] != "v" {
		t.Fatalf("unchanged update of a stale read: %v at %s, want v rewritten after %s", rewritten.Data, rewritten.ResourceVersion, created.ResourceVersion)
	}

	r, err := s.Patch(testContext(t), metav1.NamespaceDefault, "a", types.MergePatchType, []byte(`{}`), registry.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if patched := decode[metav1.PartialObjectMetadata](t, r.Data); rv(t, patched) <= rv(t, rewritten) {
		t.Fatalf("empty patch of a stale read: resourceVersion %s, want a write after %s", patched.ResourceVersion, rewritten.ResourceVersion)
	}

	storage.stale.Store(false)
	cur := getConfigMap(t, s, "a")
	again, err := update(t, s, cur.DeepCopy(), registry.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.ResourceVersion != cur.ResourceVersion {
		t.Fatalf("unchanged update once current again wrote: resourceVersion %s, want %s", again.ResourceVersion, cur.ResourceVersion)
	}
}
