package registry_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

// laggingStorage answers reads of this node's own state (Any) from a
// frozen copy, as a follower that has not applied the latest writes
// would; Most Recent reads see the store. It counts both.
type laggingStorage struct {
	registry.Storage
	mu     sync.Mutex
	frozen map[string]*registry.Object // nil: the key is missing here
	any    atomic.Int64
	recent atomic.Int64
}

// freeze makes Any reads of key answer obj (nil: not found) from now on.
func (s *laggingStorage) freeze(key string, obj *registry.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frozen[key] = obj
}

func (s *laggingStorage) Get(ctx context.Context, key string, opts registry.ReadOptions) (registry.Object, error) {
	if opts.Consistency == registry.MostRecent {
		s.recent.Add(1)
	}
	if opts.Consistency != registry.Any {
		return s.Storage.Get(ctx, key, opts)
	}
	s.any.Add(1)
	s.mu.Lock()
	obj, frozen := s.frozen[key]
	s.mu.Unlock()
	switch {
	case !frozen:
		return s.Storage.Get(ctx, key, opts)
	case obj == nil:
		_, err := s.Storage.Get(ctx, "/registry/no/such/key", opts)
		return registry.Object{}, err
	}
	return *obj, nil
}

// newLaggingFixture is a registry of configmaps over a laggingStorage and
// the key of default/a.
func newLaggingFixture(t *testing.T) (*registry.Store, *laggingStorage, string) {
	t.Helper()
	storage := &laggingStorage{Storage: registrytest.New(), frozen: map[string]*registry.Object{}}
	var uids atomic.Int64
	reg := registry.New(resource.NewRegistry(builtin.Resources()...), storage, registry.Options{
		Now:    func() time.Time { return now },
		NewUID: func() string { return fmt.Sprintf("uid-%d", uids.Add(1)) },
	})
	res := reg.Resources().Get(configMapsGVR)
	return reg.Store(res), storage, res.Key(metav1.NamespaceDefault, "a")
}

// staleCopy creates default/a, freezes this node's view of it, and
// updates it behind that view: the returned object is the current one.
func staleCopy(t *testing.T, s *registry.Store, storage *laggingStorage, key string) *corev1.ConfigMap {
	t.Helper()
	created := createConfigMap(t, s, configMap("a", "k", "v1"))
	old, err := storage.Storage.Get(testContext(t), key, registry.ReadOptions{Consistency: registry.Any})
	if err != nil {
		t.Fatal(err)
	}
	storage.freeze(key, &old)
	next := created.DeepCopy()
	next.Data["k"] = "v2"
	cur, err := update(t, s, next, registry.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// TestWritesFromLaggingState: a delete, a patch or an apply starts from
// this node's own state, and when that state lags it still acts on the
// current object: the write with the stale revision as precondition
// fails and the attempt is decided again from a Most Recent read.
func TestWritesFromLaggingState(t *testing.T) {
	t.Run("delete", func(t *testing.T) {
		s, storage, key := newLaggingFixture(t)
		cur := staleCopy(t, s, storage, key)
		d, err := s.Delete(testContext(t), metav1.NamespaceDefault, "a", &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &cur.ResourceVersion}})
		if err != nil {
			t.Fatalf("delete with the current resourceVersion as precondition, from a lagging state: %v", err)
		}
		if got := decode[corev1.ConfigMap](t, d.Data); got.Data["k"] != "v2" || !d.Gone {
			t.Errorf("delete answered %v (gone %v), want the current object, gone", got.Data, d.Gone)
		}
		if _, err := storage.Storage.Get(testContext(t), key, registry.ReadOptions{Consistency: registry.MostRecent}); !registry.IsNotFound(err) {
			t.Errorf("after the delete: %v, want not found", err)
		}
	})
	t.Run("delete of an object this node has not seen", func(t *testing.T) {
		s, storage, key := newLaggingFixture(t)
		storage.freeze(key, nil)
		createConfigMap(t, s, configMap("a", "k", "v1"))
		if _, err := s.Delete(testContext(t), metav1.NamespaceDefault, "a", &metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
	})
	t.Run("merge patch", func(t *testing.T) {
		s, storage, key := newLaggingFixture(t)
		cur := staleCopy(t, s, storage, key)
		patch := fmt.Sprintf(`{"metadata":{"resourceVersion":%q,"labels":{"l":"x"}}}`, cur.ResourceVersion)
		r, err := s.Patch(testContext(t), metav1.NamespaceDefault, "a", types.MergePatchType, []byte(patch), registry.WriteOptions{})
		if err != nil {
			t.Fatalf("patch naming the current resourceVersion, from a lagging state: %v", err)
		}
		if got := decode[corev1.ConfigMap](t, r.Data); got.Data["k"] != "v2" || got.Labels["l"] != "x" {
			t.Errorf("patched %v %v, want the current data and the label", got.Data, got.Labels)
		}
	})
	t.Run("apply", func(t *testing.T) {
		s, storage, key := newLaggingFixture(t)
		staleCopy(t, s, storage, key)
		body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"l":"y"}}}`
		r, err := s.Patch(testContext(t), metav1.NamespaceDefault, "a", types.ApplyPatchType, []byte(body), registry.WriteOptions{FieldManager: "m", Manager: "m"})
		if err != nil {
			t.Fatalf("apply from a lagging state: %v", err)
		}
		if got := decode[corev1.ConfigMap](t, r.Data); got.Data["k"] != "v2" || got.Labels["l"] != "y" {
			t.Errorf("applied %v %v, want the current data and the label", got.Data, got.Labels)
		}
	})
	t.Run("a patch that changes nothing here is decided again", func(t *testing.T) {
		s, storage, key := newLaggingFixture(t)
		cur := staleCopy(t, s, storage, key)
		r, err := s.Patch(testContext(t), metav1.NamespaceDefault, "a", types.MergePatchType, []byte(`{"data":{"k":"v1"}}`), registry.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := decode[corev1.ConfigMap](t, r.Data); got.Data["k"] != "v1" || rv(t, got) <= rv(t, cur) {
			t.Errorf("patch back to v1, a no-op on the lagging state: %v at %s, want v1 written after %s", got.Data, got.ResourceVersion, cur.ResourceVersion)
		}
	})
}

// TestWritesFromCurrentStateSkipQuorumRead: when this node's state is
// current, a delete and a patch read nothing but it.
func TestWritesFromCurrentStateSkipQuorumRead(t *testing.T) {
	s, storage, _ := newLaggingFixture(t)
	createConfigMap(t, s, configMap("a", "k", "v1"))
	before := storage.recent.Load()
	if _, err := s.Patch(testContext(t), metav1.NamespaceDefault, "a", types.MergePatchType, []byte(`{"data":{"k":"v2"}}`), registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(testContext(t), metav1.NamespaceDefault, "a", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := storage.recent.Load() - before; n != 0 {
		t.Errorf("a patch and a delete of a current object made %d Most Recent reads, want 0", n)
	}
}
