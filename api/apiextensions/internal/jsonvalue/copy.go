// Package jsonvalue holds helpers for JSON values decoded into Go
// (map[string]any, []any and scalars), shared by the converters.
package jsonvalue

// DeepCopy returns a copy of a JSON value that shares no map or slice
// with it. Other values are immutable and kept as they are, whatever
// their Go type (unlike runtime.DeepCopyJSONValue, which panics on an
// int).
func DeepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return DeepCopyObject(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = DeepCopy(e)
		}
		return out
	}
	return v
}

// DeepCopyObject is DeepCopy of an object; nil stays nil.
func DeepCopyObject(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	out := make(map[string]any, len(obj))
	for k, e := range obj {
		out[k] = DeepCopy(e)
	}
	return out
}
