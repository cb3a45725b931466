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
	// version the resource is served at.
	Group, Version string
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

// ChaosObjects are the custom-resource registers: namespaced
// chaos.raftapi.io/v1 ChaosObjects whose schema has spec.value, with a
// status subresource. A run creates their definition before its traffic
// starts.
var ChaosObjects = Resource{Name: "chaosobjects", Group: "chaos.raftapi.io", Version: "v1", Kind: "ChaosObject", KeyPrefix: "o", Custom: true}

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

// resourceOf returns the resource an operation names; "" is configmaps.
func resourceOf(name string) Resource {
	if r, ok := Resources[name]; ok {
		return r
	}
	return ConfigMaps
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

// Definition is the CustomResourceDefinition of a custom resource: one
// served and stored version whose schema has a required string
// spec.value and a status (with its subresource) that the traffic never
// writes.
func (r Resource) Definition() map[string]any {
	str := map[string]any{"type": "string"}
	singular := strings.ToLower(r.Kind)
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": r.DefinitionName()},
		"spec": map[string]any{
			"group": r.Group, "scope": "Namespaced",
			"names": map[string]any{"plural": r.Name, "singular": singular, "kind": r.Kind, "listKind": r.Kind + "List"},
			"versions": []any{map[string]any{
				"name": r.Version, "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec":   map[string]any{"type": "object", "required": []string{"value"}, "properties": map[string]any{"value": str}},
						"status": map[string]any{"type": "object", "properties": map[string]any{"observed": str}},
					},
				}},
			}},
		},
	}
}

// Owns reports whether name is one of r's register keys (KeyPrefix and a
// generation number). Objects of other names are the server's own, such
// as the kube-root-ca.crt ConfigMap every namespace gets, as in kube: no
// client writes them, so lists and watches leave them out of the history.
func (r Resource) Owns(name string) bool {
	rest, ok := strings.CutPrefix(name, r.KeyPrefix)
	return ok && rest != "" && rest[0] >= '0' && rest[0] <= '9'
}
