package api

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource describes one served resource. Handlers are driven entirely by
// these fields.
type Resource struct {
	Group      string
	Version    string
	Kind       string
	ListKind   string
	Plural     string
	Singular   string
	Namespaced bool
	ShortNames []string
}

// GroupVersion returns the resource's group/version.
func (r *Resource) GroupVersion() schema.GroupVersion {
	return schema.GroupVersion{Group: r.Group, Version: r.Version}
}

// GroupResource returns the resource's group and plural name.
func (r *Resource) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Plural}
}

// APIVersion is the apiVersion objects of this resource carry.
func (r *Resource) APIVersion() string { return r.GroupVersion().String() }

// storageGroup is the group segment of storage keys ("core" for "").
func (r *Resource) storageGroup() string {
	if r.Group == "" {
		return "core"
	}
	return r.Group
}

// prefix returns the storage prefix of the resource in namespace ns ("" for
// all namespaces or a cluster-scoped resource).
func (r *Resource) prefix(ns string) string {
	p := "/registry/" + r.storageGroup() + "/" + r.Plural + "/"
	if r.Namespaced && ns != "" {
		p += ns + "/"
	}
	return p
}

// key returns the storage key of one object.
func (r *Resource) key(ns, name string) string { return r.prefix(ns) + name }

// builtins are the resources served from bootstrap.
var builtins = []*Resource{
	{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList", Plural: "configmaps", Singular: "configmap", Namespaced: true, ShortNames: []string{"cm"}},
}

func schemaGK(r *Resource) schema.GroupKind { return schema.GroupKind{Group: r.Group, Kind: r.Kind} }
