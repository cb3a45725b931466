package apiextensions

import (
	"fmt"
	"maps"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Converter converts the custom objects of one CRD between its versions,
// kube-apiserver's CR converter. Objects are JSON content maps
// (map[string]any) that carry their version in apiVersion; the result
// carries "<group>/<to>".
//
// Convert returns one object per object of objs, in order. It must not
// modify objs or anything they hold (the caller may share them), must be
// safe for concurrent use, and should convert every object of one call in
// one round trip when it has to make one (a webhook: kube batches the
// items of a list in one ConversionReview). An error fails the whole call
// and is the request's answer: an *apierrors.StatusError, 500 with the
// cause's message as kube-apiserver sends it, unless the converter says
// otherwise.
type Converter interface {
	Convert(objs []map[string]any, to string) ([]map[string]any, error)
}

// cacheableConverter is implemented by converters whose answer depends
// only on the object: the served form of a stored object may be
// remembered (servedCache). A webhook's answer may change between two
// calls, so it is not.
type cacheableConverter interface {
	Converter
	// Deterministic reports that equal inputs always convert to equal
	// outputs.
	Deterministic() bool
}

// deterministic reports whether c's results may be cached.
func deterministic(c Converter) bool {
	d, ok := c.(cacheableConverter)
	return ok && d.Deterministic()
}

// noneConverter is the None strategy: only apiVersion changes.
type noneConverter struct{ group string }

// Convert implements Converter.
func (c noneConverter) Convert(objs []map[string]any, to string) ([]map[string]any, error) {
	apiVersion := schema.GroupVersion{Group: c.group, Version: to}.String()
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		cp := maps.Clone(o)
		cp["apiVersion"] = apiVersion
		out[i] = cp
	}
	return out, nil
}

// Deterministic implements cacheableConverter.
func (noneConverter) Deterministic() bool { return true }

// convertTo returns objs in version to through c, calling c only for the
// objects in another version (all of them in one call). Objects already
// in version to are returned as they are.
func convertTo(c Converter, group string, objs []map[string]any, to string) ([]map[string]any, error) {
	want := schema.GroupVersion{Group: group, Version: to}.String()
	var idx []int
	var in []map[string]any
	for i, o := range objs {
		if av, _ := o["apiVersion"].(string); av != want {
			idx = append(idx, i)
			in = append(in, o)
		}
	}
	if len(in) == 0 {
		return objs, nil
	}
	conv, err := c.Convert(in, to)
	if err != nil {
		return nil, err
	}
	if len(conv) != len(in) {
		return nil, apierrors.NewInternalError(fmt.Errorf("conversion to %s returned %d objects for %d", want, len(conv), len(in)))
	}
	out := make([]map[string]any, len(objs))
	copy(out, objs)
	for j, i := range idx {
		out[i] = conv[j]
	}
	return out, nil
}
