package openapi

import (
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// builder collects the definitions reachable from the Go types it is asked
// to describe, in one dialect. It is not safe for concurrent use.
type builder struct {
	dialect
	defs map[string]*spec.Schema
	gvks map[string][]schema.GroupVersionKind
}

func newBuilder(d dialect) *builder {
	return &builder{dialect: d, defs: map[string]*spec.Schema{}, gvks: map[string][]schema.GroupVersionKind{}}
}

// define makes sure the named struct type t has a definition and returns
// its name.
func (b *builder) define(t reflect.Type) string {
	name := definitionName(t)
	if _, ok := b.defs[name]; ok {
		return name
	}
	def := &spec.Schema{}
	b.defs[name] = def // before building, so that a type refering to itself ends
	*def = b.definition(t)
	return name
}

// definition is the schema of the named struct type t.
func (b *builder) definition(t reflect.Type) spec.Schema {
	s, ok := b.special(t)
	if !ok {
		return b.object(t)
	}
	if s.Description == "" {
		s.Description = swaggerDoc(t)[""]
	}
	return s
}

// addGVK records that the definition called name is the schema of gvk,
// for its x-kubernetes-group-version-kind extension.
func (b *builder) addGVK(name string, gvk schema.GroupVersionKind) {
	for _, have := range b.gvks[name] {
		if have == gvk {
			return
		}
	}
	b.gvks[name] = append(b.gvks[name], gvk)
}

// definitions returns the collected definitions, each defined kind carrying
// its x-kubernetes-group-version-kind list.
//
// Extension values are built from JSON types ([]any, map[string]any), as if
// decoded, so that in-process consumers of a document (such as
// managedfields.NewTypeConverter) read them as they would a served one.
func (b *builder) definitions() map[string]*spec.Schema {
	for name, gvks := range b.gvks {
		sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
		list := make([]any, 0, len(gvks))
		for _, gvk := range gvks {
			list = append(list, gvkExtension(gvk))
		}
		b.defs[name].AddExtension(extGVK, list)
	}
	return b.defs
}

// gvkExtension is the value of x-kubernetes-group-version-kind for one kind
// (operations carry one, definitions a list of them).
func gvkExtension(gvk schema.GroupVersionKind) map[string]any {
	return map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}
}

// Extension names.
const (
	extGVK                   = "x-kubernetes-group-version-kind"
	extAction                = "x-kubernetes-action"
	extPatchStrategy         = "x-kubernetes-patch-strategy"
	extPatchMergeKey         = "x-kubernetes-patch-merge-key"
	extListType              = "x-kubernetes-list-type"
	extListMapKeys           = "x-kubernetes-list-map-keys"
	extIntOrString           = "x-kubernetes-int-or-string"
	extPreserveUnknownFields = "x-kubernetes-preserve-unknown-fields"
	extEmbeddedResource      = "x-kubernetes-embedded-resource"
	extSelectableFields      = "x-kubernetes-selectable-fields"
)
