package audit

import (
	"bytes"
	"encoding/json"
)

// withoutManagedFields returns a JSON object without metadata.managedFields,
// nor those of a list's items or of a Table's row objects, as kube's
// omitManagedFields does; obj itself if it does not parse.
func withoutManagedFields(obj []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return obj
	}
	dropManagedFields(m)
	if items, ok := m["items"].([]any); ok {
		for _, it := range items {
			dropManagedFields(it)
		}
	}
	if rows, ok := m["rows"].([]any); ok && m["kind"] == "Table" {
		for _, row := range rows {
			if r, ok := row.(map[string]any); ok {
				dropManagedFields(r["object"])
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return obj
	}
	return out
}

// dropManagedFields removes metadata.managedFields from obj, if it is an
// object.
func dropManagedFields(obj any) {
	m, ok := obj.(map[string]any)
	if !ok {
		return
	}
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}
}
