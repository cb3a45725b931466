package openapi

import (
	"reflect"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// fieldExtensions are the x-kubernetes extensions a field's struct tags
// call for.
//
// patchStrategy and patchMergeKey become the patch extensions. The list
// type is read from listType and listMapKey tags when a type has them;
// k8s.io/api keeps list types in comments instead, so for its lists the
// strategic-merge tags stand in: a merged list of objects with a merge key
// is a map keyed by it, a merged list of scalars is a set.
func fieldExtensions(f reflect.StructField) spec.Extensions {
	ext := spec.Extensions{}
	strategy := f.Tag.Get("patchStrategy")
	mergeKey := f.Tag.Get("patchMergeKey")
	if strategy != "" {
		ext.Add(extPatchStrategy, strategy)
	}
	if mergeKey != "" {
		ext.Add(extPatchMergeKey, mergeKey)
	}
	listType, keys := listTypeOf(f, strategy, mergeKey)
	if listType != "" {
		ext.Add(extListType, listType)
	}
	if len(keys) > 0 {
		list := make([]any, 0, len(keys))
		for _, k := range keys {
			list = append(list, k)
		}
		ext.Add(extListMapKeys, list)
	}
	return ext
}

// listTypeOf returns the x-kubernetes-list-type of a slice field and, for
// "map", its keys.
func listTypeOf(f reflect.StructField, strategy, mergeKey string) (string, []string) {
	t := deref(f.Type)
	if t.Kind() != reflect.Slice || t.Elem().Kind() == reflect.Uint8 {
		return "", nil
	}
	if lt := f.Tag.Get("listType"); lt != "" {
		var keys []string
		if k := f.Tag.Get("listMapKey"); lt == "map" && k != "" {
			keys = strings.Split(k, ",")
		}
		return lt, keys
	}
	if !strings.Contains(strategy, "merge") {
		return "", nil
	}
	if deref(t.Elem()).Kind() == reflect.Struct {
		if mergeKey == "" {
			return "", nil
		}
		return "map", []string{mergeKey}
	}
	return "set", nil
}
