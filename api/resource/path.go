package resource

import "strings"

// Lookup returns the value at a dotted path in JSON content, and whether
// it was there.
func Lookup(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for _, seg := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// HasField reports whether fieldName can be used in a field selector.
func (r *Resource) HasField(fieldName string) bool {
	if fieldName == "metadata.name" || fieldName == "metadata.namespace" {
		return true
	}
	_, ok := r.Fields[fieldName]
	return ok
}

// FieldValue returns the field-selector value of field in obj: the string
// form of the value at the field's path, "" when absent.
func (r *Resource) FieldValue(obj map[string]any, fieldName string) (string, bool) {
	path := fieldName
	switch fieldName {
	case "metadata.name", "metadata.namespace":
	default:
		p, ok := r.Fields[fieldName]
		if !ok {
			return "", false
		}
		path = p
	}
	v, _ := Lookup(obj, path)
	return stringOf(v), true
}

func stringOf(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		if t {
			return "true"
		}
		return "false"
	}
	return strings.TrimSpace(strings.Trim(jsonString(v), "\""))
}
