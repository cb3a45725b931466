package garbagecollector

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/resource"
)

// errUnresolvable marks an owner reference the collector cannot look up:
// a kind not served in that version, or a namespaced owner of a
// cluster-scoped object. Kube's collector leaves such an object alone
// rather than take the owner for absent; so does this one.
var errUnresolvable = errors.New("garbagecollector: unresolvable owner reference")

// ownerKey returns the resource and storage key of the owner ref of dependent n: the
// owner's kind in ref's apiVersion must be served (the registry is read
// each time, so kinds added later resolve), and a namespaced owner lives
// in n's namespace.
func (gc *Collector) ownerKey(n *gcNode, ref metav1.OwnerReference) (*resource.Resource, string, error) {
	res := gc.ownerResource(ref)
	if res == nil {
		return nil, "", fmt.Errorf("%w: %s %s is not served", errUnresolvable, ref.APIVersion, ref.Kind)
	}
	if !res.Namespaced {
		return res, res.Key("", ref.Name), nil
	}
	if n.meta.Namespace == "" {
		return nil, "", fmt.Errorf("%w: cluster-scoped object with namespaced owner %s %s", errUnresolvable, ref.Kind, ref.Name)
	}
	return res, res.Key(n.meta.Namespace, ref.Name), nil
}

// ownerResource returns the collectable resource of ref's apiVersion and
// kind, or nil.
func (gc *Collector) ownerResource(ref metav1.OwnerReference) *resource.Resource {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil
	}
	for _, res := range gc.reg.Resources().All() {
		if res.GroupVersion() == gv && res.Kind == ref.Kind && collectable(res) {
			return res
		}
	}
	return nil
}
