package registry

import (
	"fmt"
	"maps"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/raftapi/raftapi/api/openapi"
	"github.com/raftapi/raftapi/api/resource"
)

// Subresource names a field manager is built for.
const (
	mainResource   = ""
	statusResource = "status"
)

// fieldManagers builds, once per resource and subresource, the
// managedfields.FieldManager that maintains metadata.managedFields on
// every write and merges server-side apply configurations. Type
// information comes from the resource's OpenAPI schema, so lists and maps
// merge as their x-kubernetes-list-type and patch extensions say;
// resources without a Go type merge as deduced, atomic-list JSON, as
// kube-apiserver does for schemaless custom resources.
type fieldManagers struct {
	reg *resource.Registry

	mu  sync.Mutex
	fms map[fieldManagerKey]*managedfields.FieldManager
}

type fieldManagerKey struct {
	res         *resource.Resource
	subresource string
}

func newFieldManagers(reg *resource.Registry) *fieldManagers {
	return &fieldManagers{reg: reg, fms: map[fieldManagerKey]*managedfields.FieldManager{}}
}

// get returns the field manager of res (subresource "" or "status").
func (f *fieldManagers) get(res *resource.Resource, subresource string) (*managedfields.FieldManager, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := fieldManagerKey{res, subresource}
	if fm, ok := f.fms[k]; ok {
		return fm, nil
	}
	fm, err := f.build(res, subresource)
	if err != nil {
		return nil, fmt.Errorf("field manager of %s: %w", res.GroupResource(), err)
	}
	f.fms[k] = fm
	return fm, nil
}

// forget drops the field managers of res, which is no longer served.
func (f *fieldManagers) forget(res *resource.Resource) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k := range f.fms {
		if k.res == res {
			delete(f.fms, k)
		}
	}
}

func (f *fieldManagers) build(res *resource.Resource, subresource string) (*managedfields.FieldManager, error) {
	conv := objectConverter{res: res}
	gvk := res.GroupVersionKind()
	reset := resetFields(res, subresource)
	if !res.Typed() {
		tc := managedfields.NewDeducedTypeConverter()
		if res.Schema != nil {
			conv.others = f.otherVersions(res)
		}
		if res.Schema != nil && res.Schema.OpenAPI(true) != nil {
			var err error
			if tc, err = f.typeConverter(res, conv.others); err != nil {
				return nil, err
			}
		}
		return managedfields.NewDefaultCRDFieldManager(tc, conv, noDefaults{}, conv, gvk, gvk.GroupVersion(), subresource, reset)
	}
	tc, err := f.typeConverter(res, nil)
	if err != nil {
		return nil, err
	}
	return managedfields.NewDefaultFieldManager(tc, conv, noDefaults{}, conv, gvk, gvk.GroupVersion(), subresource, reset)
}

// typeConverter builds the structured-merge-diff types of res's
// group/version, and of the other versions of its kind (others), from
// their OpenAPI v3 documents.
func (f *fieldManagers) typeConverter(res *resource.Resource, others []schema.GroupVersionKind) (managedfields.TypeConverter, error) {
	doc, ok := openapi.V3(f.reg, res.GroupVersion())
	if !ok || doc.Components == nil {
		return nil, fmt.Errorf("no OpenAPI document for %s", res.GroupVersion())
	}
	schemas := maps.Clone(doc.Components.Schemas)
	for _, gvk := range others {
		if d, ok := openapi.V3(f.reg, gvk.GroupVersion()); ok && d.Components != nil {
			for name, s := range d.Components.Schemas {
				if _, dup := schemas[name]; !dup {
					schemas[name] = s
				}
			}
		}
	}
	return managedfields.NewTypeConverter(schemas, false)
}

// otherVersions returns the kinds of res's other served versions (the
// resources of its group and plural in other versions, untyped and with a
// Schema, as every version of a custom resource is).
func (f *fieldManagers) otherVersions(res *resource.Resource) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, r := range f.reg.All() {
		if r.Group == res.Group && r.Plural == res.Plural && r.Version != res.Version && !r.Typed() && r.Schema != nil {
			out = append(out, r.GroupVersionKind())
		}
	}
	return out
}

// resetFields are the fields a write through subresource does not own,
// because the server resets them: status on the main resource and
// everything but status on /status, for resources with a status
// subresource.
func resetFields(res *resource.Resource, subresource string) map[fieldpath.APIVersion]fieldpath.Filter {
	if !res.HasSubresource(statusResource) {
		return nil
	}
	filter := fieldpath.NewExcludeSetFilter(fieldpath.NewSet(fieldpath.MakePathOrDie("status")))
	if subresource == statusResource {
		filter = fieldpath.NewIncludeMatcherFilter(fieldpath.MakePrefixMatcherOrDie("status"))
	}
	return map[fieldpath.APIVersion]fieldpath.Filter{fieldpath.APIVersion(res.APIVersion()): filter}
}
