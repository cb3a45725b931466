package resource

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Subresource is a subresource of a resource's objects, served at
// .../{name}/{Subresource.Name}.
//
// The "status" subresource follows the API conventions: writes to the
// main resource keep the stored status whatever the client sent, and
// writes to /status keep everything but status (metadata.managedFields
// aside). Other subresources (namespaces/finalize) are plain alternative
// update endpoints whose Strategy decides what they may change.
type Subresource struct {
	// Name is the path segment: "status", "finalize".
	Name string
	// Verbs are the verbs served; nil means get, patch and update.
	Verbs []string
	// Strategy runs on writes through the subresource instead of the
	// resource's Strategy; nil means DefaultStrategy.
	Strategy Strategy
	// Scale, when set, makes the subresource the object's autoscaling/v1
	// Scale (a custom resource's /scale): reads return a Scale computed
	// from the object, writes take a Scale and set the object's desired
	// replicas. Strategy is not used.
	Scale *Scale
	// Create, when set, serves POST on the subresource (a service
	// account's token): the body is decoded as Body's type and the answer
	// is what Create returns, with 201. Verbs must be {"create"}.
	Create SubresourceCreateFunc
	// Body describes the type Create takes and returns (TokenRequest).
	Body *Resource
}

// Scale locates the fields of an object a Scale subresource shows, as
// simple JSON paths (".spec.replicas").
type Scale struct {
	// SpecReplicasPath is the desired replicas, read and written.
	SpecReplicasPath string
	// StatusReplicasPath is the observed replicas, read only.
	StatusReplicasPath string
	// LabelSelectorPath, if set, is the serialized label selector of the
	// observed replicas (status.selector), read only.
	LabelSelectorPath string
}

// SubresourceVerbs are the verbs of a subresource whose Verbs are nil.
var SubresourceVerbs = []string{"get", "patch", "update"}

// ServedVerbs returns s.Verbs or SubresourceVerbs.
func (s *Subresource) ServedVerbs() []string {
	if s.Verbs != nil {
		return s.Verbs
	}
	return SubresourceVerbs
}

// GetStrategy returns s.Strategy or DefaultStrategy.
func (s *Subresource) GetStrategy() Strategy {
	if s.Strategy != nil {
		return s.Strategy
	}
	return DefaultStrategy{}
}

// Subresource returns the subresource called name, or nil.
func (r *Resource) Subresource(name string) *Subresource {
	for i := range r.Subresources {
		if r.Subresources[i].Name == name {
			return &r.Subresources[i]
		}
	}
	return nil
}

// HasSubresource reports whether r serves the subresource called name.
func (r *Resource) HasSubresource(name string) bool { return r.Subresource(name) != nil }

// ScaleResource describes the autoscaling/v1 Scale objects that the scale
// subresource of parent reads and writes, for decoding request bodies and
// encoding responses; errors still name parent.
func ScaleResource(parent *Resource) *Resource {
	return &Resource{
		Group: autoscalingv1.GroupName, Version: "v1", Kind: "Scale", ListKind: "ScaleList",
		Plural: parent.Plural, Singular: parent.Singular, Namespaced: parent.Namespaced,
		New: func() runtime.Object { return &autoscalingv1.Scale{} },
	}
}
