// Package resource describes the resources the API serves. A Resource is
// pure data plus a Strategy: the HTTP handlers, discovery and OpenAPI are
// driven by it, so a new resource (a custom resource, later) is added by
// describing it, not by writing handlers.
package resource

import (
	"context"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Resource describes one served resource in one API version.
type Resource struct {
	Group      string
	Version    string
	Kind       string
	ListKind   string
	Plural     string
	Singular   string
	Namespaced bool
	ShortNames []string
	Categories []string

	// Verbs are the verbs served; nil means all of AllVerbs.
	Verbs metav1.Verbs

	// New returns an empty object of the resource's Go type (for example
	// &corev1.ConfigMap{}). It is nil for resources without a Go type,
	// which are handled as unstructured JSON and cannot be encoded as
	// Protobuf or patched with a strategic merge patch.
	New func() runtime.Object
	// NewList returns an empty list of the Go type; nil when New is nil.
	NewList func() runtime.Object

	// Columns are the Table columns, in order. A NAME column comes first
	// unless one of them has Format "name"; an AGE column is appended
	// unless one is named "Age" or OmitAge is set. Cells are computed
	// from the stored object.
	Columns []Column
	// OmitAge leaves the automatic AGE column out.
	OmitAge bool

	// Fields maps the field-selector fields the resource supports, beyond
	// metadata.name and metadata.namespace which every resource has, to a
	// dotted path into the stored object ("involvedObject.kind" →
	// "involvedObject.kind", "source" → "source.component").
	Fields map[string]string

	// StoredAs, when set, keeps the resource's objects in another
	// version's form and storage keys; nil stores them as served.
	StoredAs *StoredAs

	// Strategy normalises and validates objects on writes; nil means
	// DefaultStrategy.
	Strategy Strategy

	// TracksGeneration: the server owns metadata.generation, 1 on create
	// and one more on every change beyond metadata (and status, with a
	// status subresource), as kube-apiserver's strategies for custom
	// resources and CustomResourceDefinitions do. Without it the
	// generation is whatever the object was created with (usually none)
	// and never moves, as for kube-apiserver's ConfigMaps, Secrets,
	// Namespaces and the other resources whose strategies leave it alone.
	// Either way an update keeps the stored generation and a graceful
	// delete bumps one that is set.
	TracksGeneration bool

	// ValidateName checks metadata.name (prefix: a generateName prefix);
	// nil means a DNS-1123 subdomain, kube-apiserver's default. It has the
	// signature of the apimachinery validation.ValidateNameFunc helpers.
	ValidateName func(name string, prefix bool) []string

	// MaxSize, when positive, is the largest encoded object accepted
	// (validation fails with a TooLong error on the object's data fields).
	MaxSize int

	// Subresources are the subresources served, such as status.
	Subresources []Subresource

	// Schema, for a resource without a Go type, is the shape of its
	// objects (a custom resource's); nil means any JSON object.
	Schema Schema

	// Warnings are sent as Warning headers with every response of the
	// resource and its subresources (a deprecated version's).
	Warnings []string

	// Review, when set, makes the resource a review (an access review,
	// TokenReview): its only verb is create, which answers with what
	// Review computes and stores nothing. Verbs must be {"create"}.
	Review ReviewFunc

	// Admit, when set, may refuse a write of the resource's objects; see
	// AdmitFunc.
	Admit AdmitFunc
}

// AdmitFunc is a resource's own admission check, kube-apiserver's
// policy-based storage (the RBAC kinds' escalation prevention) as a hook.
//
// The registry calls it on every create, update, patch and server-side
// apply of the resource itself (not of its subresources), dry runs
// included: after the strategy has prepared and validated the object and
// the namespace admission has passed, before anything is stored. ctx is
// the request's (request.UserFrom tells who sends it; no user means an
// in-process caller). obj is the object as it would be stored, in the
// resource's Go type (*unstructured.Unstructured for untyped resources),
// with its namespace and name (a name generated from generateName is
// drawn again if it collides); old is the stored object it replaces, nil
// on create. An update retried after a conflict calls it again with the
// newer old.
//
// A nil error admits the write; any other error refuses it and is
// returned to the client as it is, so it should be a Status error
// (apierrors.NewForbidden, ...). Implementations must not modify obj or
// old, must be safe for concurrent use, and may read the store.
type AdmitFunc func(ctx context.Context, obj, old runtime.Object) error

// AllVerbs are the verbs of a fully served resource.
var AllVerbs = metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// ServedVerbs returns r.Verbs or AllVerbs.
func (r *Resource) ServedVerbs() metav1.Verbs {
	if r.Verbs != nil {
		return r.Verbs
	}
	return AllVerbs
}

// Serves reports whether verb is one of the served verbs.
func (r *Resource) Serves(verb string) bool {
	for _, v := range r.ServedVerbs() {
		if v == verb {
			return true
		}
	}
	return false
}

// GroupVersion returns the resource's group/version.
func (r *Resource) GroupVersion() schema.GroupVersion {
	return schema.GroupVersion{Group: r.Group, Version: r.Version}
}

// GroupResource returns the resource's group and plural name.
func (r *Resource) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Plural}
}

// GroupVersionKind returns the kind of the resource's objects.
func (r *Resource) GroupVersionKind() schema.GroupVersionKind {
	return r.GroupVersion().WithKind(r.Kind)
}

// GroupKind returns the group and kind of the resource's objects.
func (r *Resource) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: r.Group, Kind: r.Kind}
}

// APIVersion is the apiVersion objects of this resource carry.
func (r *Resource) APIVersion() string { return r.GroupVersion().String() }

// Typed reports whether the resource has a Go type.
func (r *Resource) Typed() bool { return r.New != nil }

// GoType returns the Go struct type of the resource's objects, or nil.
func (r *Resource) GoType() reflect.Type {
	if r.New == nil {
		return nil
	}
	return reflect.TypeOf(r.New()).Elem()
}

// GoListType returns the Go struct type of the resource's lists, or nil.
func (r *Resource) GoListType() reflect.Type {
	if r.NewList == nil {
		return nil
	}
	return reflect.TypeOf(r.NewList()).Elem()
}

// GetStrategy returns r.Strategy or DefaultStrategy.
func (r *Resource) GetStrategy() Strategy {
	if r.Strategy != nil {
		return r.Strategy
	}
	return DefaultStrategy{}
}

// storageGroup is the group segment of storage keys ("core" for "").
func (r *Resource) storageGroup() string {
	group := r.Group
	if r.StoredAs != nil {
		group = r.StoredAs.Group
	}
	if group == "" {
		return "core"
	}
	return group
}

// Prefix returns the storage prefix of the resource in namespace ns (""
// for all namespaces or a cluster-scoped resource). It ends in "/".
func (r *Resource) Prefix(ns string) string {
	p := "/registry/" + r.storageGroup() + "/" + r.storagePlural() + "/"
	if r.Namespaced && ns != "" {
		p += ns + "/"
	}
	return p
}

// Key returns the storage key of one object.
func (r *Resource) Key(ns, name string) string { return r.Prefix(ns) + name }

// Column is one Table column.
type Column struct {
	metav1.TableColumnDefinition
	// Path is a dotted path into the object whose value is the cell
	// ("spec.holderIdentity"); used when Value is nil.
	Path string
	// Value computes the cell from the object's JSON content; it overrides
	// Path. It returns nil for an empty cell.
	Value func(obj map[string]any) any
}

// Strategy is a resource's write behaviour. The API calls it on every
// create, update and patch, after decoding and before storing, with the
// object in the resource's Go type (or *unstructured.Unstructured for
// untyped resources). Server-owned metadata (uid, creationTimestamp,
// resourceVersion, generation, deletionTimestamp) is managed by the API,
// not the strategy. Implementations must be safe for concurrent use and
// must not block.
type Strategy interface {
	// PrepareForCreate normalises a new object before validation:
	// defaulting, folding convenience fields (a secret's stringData),
	// clearing fields clients may not set.
	PrepareForCreate(obj runtime.Object)
	// PrepareForUpdate normalises obj, the replacement of old, before
	// validation.
	PrepareForUpdate(obj, old runtime.Object)
	// Validate returns the field errors of a new object; the API adds
	// metadata validation (name, labels, annotations) itself.
	Validate(obj runtime.Object) field.ErrorList
	// ValidateUpdate returns the field errors of replacing old by obj,
	// including immutability.
	ValidateUpdate(obj, old runtime.Object) field.ErrorList
}

// DefaultStrategy accepts every object as it is.
type DefaultStrategy struct{}

// PrepareForCreate implements Strategy.
func (DefaultStrategy) PrepareForCreate(runtime.Object) {}

// PrepareForUpdate implements Strategy.
func (DefaultStrategy) PrepareForUpdate(runtime.Object, runtime.Object) {}

// Validate implements Strategy.
func (DefaultStrategy) Validate(runtime.Object) field.ErrorList { return nil }

// ValidateUpdate implements Strategy.
func (DefaultStrategy) ValidateUpdate(runtime.Object, runtime.Object) field.ErrorList { return nil }
