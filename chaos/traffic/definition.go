package traffic

import "strings"

// Definition is the CustomResourceDefinition of a custom resource: each
// of its Versions served (the first stored), with a schema whose spec
// has the version's value field, required, and a status (with its
// subresource) that the traffic never writes.
func (r Resource) Definition() map[string]any {
	versions := r.Versions
	if len(versions) == 0 {
		versions = []Version{{Name: r.Version, ValueField: r.ValueField}}
	}
	var vs []any
	for i, v := range versions {
		vs = append(vs, map[string]any{
			"name": v.Name, "served": true, "storage": i == 0,
			"subresources": map[string]any{"status": map[string]any{}},
			"schema":       map[string]any{"openAPIV3Schema": objectSchema(v.ValueField)},
		})
	}
	singular := strings.ToLower(r.Kind)
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": r.DefinitionName()},
		"spec": map[string]any{
			"group": r.Group, "scope": "Namespaced",
			"names":    map[string]any{"plural": r.Name, "singular": singular, "kind": r.Kind, "listKind": r.Kind + "List"},
			"versions": vs,
		},
	}
}

// objectSchema is the schema of a custom object whose value is the
// string spec.<field>.
func objectSchema(field string) map[string]any {
	str := map[string]any{"type": "string"}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec":   map[string]any{"type": "object", "required": []string{field}, "properties": map[string]any{field: str}},
			"status": map[string]any{"type": "object", "properties": map[string]any{"observed": str}},
		},
	}
}

// Policy is the raftapi.io/v1 ConversionPolicy of a custom resource
// served in several versions: one step per pair of adjacent versions,
// renaming the value's field where they name it differently (status is
// at the same path in each, copied). nil for a resource served in one
// version.
func (r Resource) Policy() map[string]any {
	if len(r.Versions) < 2 {
		return nil
	}
	var steps []any
	for i := 1; i < len(r.Versions); i++ {
		from, to := r.Versions[i-1], r.Versions[i]
		step := map[string]any{"from": from.Name, "to": to.Name}
		if from.ValueField != to.ValueField {
			step["renames"] = []any{map[string]any{"from": "spec." + from.ValueField, "to": "spec." + to.ValueField}}
		}
		steps = append(steps, step)
	}
	return map[string]any{
		"apiVersion": "raftapi.io/v1", "kind": "ConversionPolicy",
		"metadata": map[string]any{"name": r.DefinitionName()},
		"spec":     map[string]any{"steps": steps},
	}
}
