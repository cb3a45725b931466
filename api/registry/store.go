package registry

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/resource"
)

// Store holds the verbs of one resource, or of one of its subresources:
// kube-apiserver's generic registry store with the resource's strategy.
// Every verb takes ctx and a plain options struct, and returns the
// object's stored form (JSON with apiVersion, kind and resourceVersion)
// or a *apierrors.StatusError whose code and reason kube-apiserver would
// answer. A Store is safe for concurrent use.
type Store struct {
	reg *Registry
	res *resource.Resource
	// sub is the subresource served, nil for the resource itself.
	sub *resource.Subresource
}

// Resource returns the resource s serves.
func (s *Store) Resource() *resource.Resource { return s.res }

func (s *Store) storage() Storage { return s.reg.storage }

// subresourceName is the subresource s serves, "" for the resource.
func (s *Store) subresourceName() string {
	if s.sub == nil {
		return mainResource
	}
	return s.sub.Name
}

// strategy is the write strategy of what s serves.
func (s *Store) strategy() resource.Strategy {
	if s.sub != nil {
		return s.sub.GetStrategy()
	}
	return s.res.GetStrategy()
}

// PatchTypes returns the patch media types the resource accepts.
func (s *Store) PatchTypes() []string {
	ts := []string{string(types.JSONPatchType), string(types.MergePatchType)}
	if s.isScale() {
		return append(ts, string(types.StrategicMergePatchType))
	}
	if s.res.Typed() {
		ts = append(ts, string(types.StrategicMergePatchType))
	}
	return append(ts, string(types.ApplyPatchType))
}
