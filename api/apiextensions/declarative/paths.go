package declarative

import (
	"fmt"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// fieldPath is a dotted field path ("spec.size") split into the names of
// the object fields it goes through.
type fieldPath []string

// carried are the top-level fields every conversion carries as they are;
// no rule may name them.
var carried = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// parsePath splits a dotted path, refusing empty names and the fields
// every conversion carries.
func parsePath(s string) (fieldPath, error) {
	p := fieldPath(strings.Split(s, "."))
	for _, name := range p {
		if name == "" {
			return nil, fmt.Errorf("must be a dotted path of field names, such as spec.size")
		}
	}
	if carried[p[0]] {
		return nil, fmt.Errorf("%s is carried by every conversion: a rule cannot name it", p[0])
	}
	return p, nil
}

// String returns the dotted form of p.
func (p fieldPath) String() string { return strings.Join(p, ".") }

// within reports whether p is q or a field inside q.
func (p fieldPath) within(q fieldPath) bool {
	if len(p) < len(q) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// get returns the value at p in obj (not a copy).
func (p fieldPath) get(obj map[string]any) (any, bool) {
	v, found, err := unstructured.NestedFieldNoCopy(obj, p...)
	return v, found && err == nil
}

// remove deletes the value at p in obj; the objects around it stay.
func (p fieldPath) remove(obj map[string]any) { unstructured.RemoveNestedField(obj, p...) }

// set puts v at p in obj, creating the objects on the way (a value on the
// way that is not an object is replaced by one).
func (p fieldPath) set(obj map[string]any, v any) {
	cur := obj
	for _, name := range p[:len(p)-1] {
		next, ok := cur[name].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[name] = next
		}
		cur = next
	}
	cur[p[len(p)-1]] = v
}

// schemaAt returns the schema of the field at p in s, following object
// properties only; nil when s has no such field.
func schemaAt(s *structuralschema.Structural, p fieldPath) *structuralschema.Structural {
	for _, name := range p {
		if s == nil {
			return nil
		}
		prop, ok := s.Properties[name]
		if !ok {
			return nil
		}
		s = &prop
	}
	return s
}
