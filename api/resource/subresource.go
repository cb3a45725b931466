package resource

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
