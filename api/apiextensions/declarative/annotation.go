package declarative

import (
	"maps"
	"strings"
)

// AnnotationPrefix begins the keys of the annotations the converter keeps
// for a lossless round trip: "conversion.raftapi.io/<version>" holds a
// JSON merge patch (RFC 7386) that turns the object converted back into
// <version> into the object as it was in <version>. Converting an object
// into <version> applies the patch and removes the annotation; converting
// it elsewhere carries the annotation along. The prefix is reserved: the
// converter never reads these annotations as data (CEL expressions do not
// see them, patches never mention them).
const AnnotationPrefix = "conversion.raftapi.io/"

// annotationKey is the key of the annotation that restores an object in
// version.
func annotationKey(version string) string { return AnnotationPrefix + version }

// annotations returns obj's metadata.annotations, nil when it has none.
func annotations(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	a, _ := md["annotations"].(map[string]any)
	return a
}

// takeAnnotation returns obj without the annotation key (sharing
// everything else with obj, which it does not modify) and the value it
// had. Annotations or metadata left empty are removed.
func takeAnnotation(obj map[string]any, key string) (map[string]any, string, bool) {
	v, ok := annotations(obj)[key]
	if !ok {
		return obj, "", false
	}
	s, _ := v.(string)
	return withAnnotations(obj, func(a map[string]any) { delete(a, key) }), s, true
}

// withoutReserved returns obj without any annotation of AnnotationPrefix,
// sharing everything else with obj, which it does not modify.
func withoutReserved(obj map[string]any) map[string]any {
	reserved := false
	for k := range annotations(obj) {
		reserved = reserved || strings.HasPrefix(k, AnnotationPrefix)
	}
	if !reserved {
		return obj
	}
	return withAnnotations(obj, func(a map[string]any) {
		maps.DeleteFunc(a, func(k string, _ any) bool { return strings.HasPrefix(k, AnnotationPrefix) })
	})
}

// withAnnotations returns a shallow copy of obj whose annotations (a
// copy) edit has changed; annotations or metadata left empty are removed.
func withAnnotations(obj map[string]any, edit func(map[string]any)) map[string]any {
	out := maps.Clone(obj)
	md, _ := obj["metadata"].(map[string]any)
	md = maps.Clone(md)
	if md == nil {
		md = map[string]any{}
	}
	a, _ := md["annotations"].(map[string]any)
	a = maps.Clone(a)
	if a == nil {
		a = map[string]any{}
	}
	edit(a)
	md["annotations"] = a
	out["metadata"] = md
	dropEmptyMetadata(out)
	return out
}

// dropEmptyMetadata removes obj's annotations when there are none, then
// its metadata when it is empty, so that adding and then removing an
// annotation gives back the same object.
func dropEmptyMetadata(obj map[string]any) {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	if a, ok := md["annotations"].(map[string]any); ok && len(a) == 0 {
		delete(md, "annotations")
	}
	if len(md) == 0 {
		delete(obj, "metadata")
	}
}
