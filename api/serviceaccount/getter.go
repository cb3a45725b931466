package serviceaccount

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// Getter reads the objects tokens name. Implementations are safe for
// concurrent use.
type Getter interface {
	// ServiceAccount returns the service account ns/name: from this
	// node's own state when local is set (no waiting on other nodes),
	// from the most recent state otherwise. A missing one is kube's
	// NotFound Status error for serviceaccounts.
	ServiceAccount(ctx context.Context, ns, name string, local bool) (*corev1.ServiceAccount, error)
	// Secret returns the secret ns/name, as ServiceAccount.
	Secret(ctx context.Context, ns, name string, local bool) (*corev1.Secret, error)
}

var (
	serviceAccountsGVR = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	secretsGVR         = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
)

// storageGetter reads objects straight from the registry's storage (so
// secrets come back decrypted), where the resource descriptions place
// them.
type storageGetter struct {
	storage   registry.Storage
	resources *resource.Registry
}

// StorageGetter returns the Getter that reads the objects from storage,
// under the keys of the serviceaccounts and secrets of resources.
func StorageGetter(storage registry.Storage, resources *resource.Registry) Getter {
	return storageGetter{storage: storage, resources: resources}
}

var _ Getter = storageGetter{}

// ServiceAccount implements Getter.
func (g storageGetter) ServiceAccount(ctx context.Context, ns, name string, local bool) (*corev1.ServiceAccount, error) {
	sa := &corev1.ServiceAccount{}
	return sa, g.get(ctx, serviceAccountsGVR, ns, name, local, sa)
}

// Secret implements Getter.
func (g storageGetter) Secret(ctx context.Context, ns, name string, local bool) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	return s, g.get(ctx, secretsGVR, ns, name, local, s)
}

func (g storageGetter) get(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, local bool, into any) error {
	res := g.resources.Get(gvr)
	if res == nil {
		return apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	consistency := registry.MostRecent
	if local {
		consistency = registry.Any
	}
	obj, err := g.storage.Get(ctx, res.Key(ns, name), registry.ReadOptions{Consistency: consistency})
	if err != nil {
		return registry.StatusError(err, res, name)
	}
	if err := json.Unmarshal(obj.Data, into); err != nil {
		return apierrors.NewInternalError(fmt.Errorf("decode %s %s/%s: %w", gvr.Resource, ns, name, err))
	}
	return nil
}
