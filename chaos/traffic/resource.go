package traffic

import (
	"fmt"
	"strings"
)

// Resource is a collection the clients use as registers: where it is
// served and how one of its objects holds the register's value.
type Resource struct {
	// Name is the plural, and the history's Op.Resource.
	Name string
	// Group and Version are the API group ("" for the core group) and
	// the version requests go through: the storage version unless In
	// chose another.
	Group, Version string
	// ValueField is the field of a custom object's spec that holds the
	// register's value in Version.
	ValueField string
	// Versions are every served version of a custom resource, the
	// storage version first; empty for a resource served in one.
	Versions []Version
	// Kind is its objects' kind.
	Kind string
	// KeyPrefix starts the names of its register keys ("r3-1", "o3-1"),
	// so keys of different resources differ in messages too.
	KeyPrefix string
	// Custom marks a custom resource: served only once the
	// CustomResourceDefinition that Definition returns is established,
	// its value in spec.value (a configmap keeps it in data.v).
	Custom bool
}

// ConfigMaps are the built-in registers: core v1 configmaps, the value in
// data.v.
var ConfigMaps = Resource{Name: "configmaps", Version: "v1", Kind: "ConfigMap", KeyPrefix: "r"}

// Version is one served version of a custom resource.
type Version struct {
	Name string
	// ValueField is the field of spec that holds the register's value in
	// this version.
	ValueField string
}

// ChaosObjects are the custom-resource registers: namespaced
// ChaosObjects of group chaos.raftapi.io, with a status subresource,
// served in two versions that name the value's field differently: v1
// (the storage version) holds it in spec.value, v2 in spec.payload. A
// ConversionPolicy renames the field between them. A run creates the
// definition and the policy before its traffic starts, and its clients
// go through either version, chosen per operation.
var ChaosObjects = Resource{Name: "chaosobjects", Group: "chaos.raftapi.io", Version: "v1", ValueField: "value",
	Kind: "ChaosObject", KeyPrefix: "o", Custom: true,
	Versions: []Version{{Name: "v1", ValueField: "value"}, {Name: "v2", ValueField: "payload"}}}

// Resources are the resources the traffic knows, by name.
var Resources = map[string]Resource{ConfigMaps.Name: ConfigMaps, ChaosObjects.Name: ChaosObjects}

// ParseResources parses a comma-separated list of resource names.
func ParseResources(s string) ([]Resource, error) {
	var out []Resource
	seen := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		r, ok := Resources[name]
		if !ok {
			return nil, fmt.Errorf("traffic: unknown resource %q (%s, %s)", name, ConfigMaps.Name, ChaosObjects.Name)
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, r)
		}
	}
	return out, nil
}

// resourceOf returns the resource an operation names ("" is configmaps)
// in the version it went through ("" is the storage version).
func resourceOf(name, version string) Resource {
	r, ok := Resources[name]
	if !ok {
		r = ConfigMaps
	}
	return r.In(version)
}

// In returns r with its requests going through version; "" or a version
// r does not serve leaves r as it is.
func (r Resource) In(version string) Resource {
	for _, v := range r.Versions {
		if v.Name == version {
			r.Version, r.ValueField = v.Name, v.ValueField
		}
	}
	return r
}

// pickVersion returns the version of r an operation goes through, each
// of r's versions alike from a uniform p in [0, 1): "" for a resource
// served in one version.
func (r Resource) pickVersion(p float64) string {
	if len(r.Versions) < 2 {
		return ""
	}
	return r.Versions[int(p*float64(len(r.Versions)))].Name
}

// APIVersion is the resource's apiVersion ("v1", "chaos.raftapi.io/v1").
func (r Resource) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// path is the URL path of the group version: /api/v1, /apis/G/V.
func (r Resource) path() string {
	if r.Group == "" {
		return "/api/" + r.Version
	}
	return "/apis/" + r.APIVersion()
}

// DefinitionName is the name of a custom resource's definition.
func (r Resource) DefinitionName() string { return r.Name + "." + r.Group }

// Owns reports whether name is one of r's register keys (KeyPrefix and a
// generation number). Objects of other names are the server's own, such
// as the kube-root-ca.crt ConfigMap every namespace gets, as in kube: no
// client writes them, so lists and watches leave them out of the history.
func (r Resource) Owns(name string) bool {
	rest, ok := strings.CutPrefix(name, r.KeyPrefix)
	return ok && rest != "" && rest[0] >= '0' && rest[0] <= '9'
}
