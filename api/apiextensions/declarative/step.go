package declarative

import (
	"encoding/json"
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/raftapi/raftapi/api/apiextensions/internal/jsonvalue"
)

// direction is one way of a step, from version src to version dst,
// compiled. The way back is another direction, back.
type direction struct {
	src, dst   string
	apiVersion string
	// step names the step in messages ("spec.steps[1] (v1beta1 to v1)").
	step string
	// moves are the renames, from src paths to dst paths.
	moves []move
	// dropped are the fields of src that dst has no place for.
	dropped []fieldPath
	// constants and computed set fields of dst.
	constants []constant
	computed  []computed
	// schema is dst's: what dst cannot hold is pruned.
	schema *structuralschema.Structural
	back   *direction
}

// move is a rename: the value at from goes to to.
type move struct{ from, to fieldPath }

// constant is the value of a field of dst when converting into dst and
// the field is still unset.
type constant struct {
	path  fieldPath
	value any
}

// computed is the value of a field of dst, computed from the object in
// src; rule names it in messages ("spec.steps[1].computed[0]").
type computed struct {
	path fieldPath
	expr *expression
	rule string
}

// convert converts obj, in src, to dst, losslessly: an annotation of
// obj for dst restores what the step cannot say, and the result carries
// one for src when converting it back would not give obj (DESIGN.md).
// obj is not modified.
func (d *direction) convert(obj map[string]any) (map[string]any, error) {
	src, restore, ok := takeAnnotation(obj, annotationKey(d.dst))
	// An annotation for src on an object in src is stale (a client
	// copied it): only the patch computed below may take its place.
	src, _, _ = takeAnnotation(src, annotationKey(d.src))
	out, err := d.apply(src)
	if err != nil {
		return nil, err
	}
	if ok {
		if out, err = d.restore(out, restore); err != nil {
			return nil, err
		}
	}
	back, err := d.back.apply(out)
	if err != nil {
		return nil, fmt.Errorf("%w (converting the result back to keep what %s cannot hold)", err, d.dst)
	}
	patch := createMergePatch(withoutReserved(back), withoutReserved(src))
	if len(patch) == 0 {
		return out, nil
	}
	b, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding what %s cannot hold: %w", d.step, d.dst, err)
	}
	return withAnnotations(out, func(a map[string]any) { a[annotationKey(d.src)] = string(b) }), nil
}

// restore applies the merge patch of the annotation that brings out back
// to what it was in dst.
func (d *direction) restore(out map[string]any, annotation string) (map[string]any, error) {
	var patch map[string]any
	if err := utiljson.Unmarshal([]byte(annotation), &patch); err != nil {
		return nil, fmt.Errorf("%s: the annotation %s is not a JSON merge patch: %w", d.step, annotationKey(d.dst), err)
	}
	out = applyMergePatch(out, patch)
	out["apiVersion"] = d.apiVersion
	return out, nil
}

// apply is the step itself: renames moved, src fields dropped, constants
// and computed fields set, and what dst cannot hold pruned. obj is not
// modified; the result shares nothing with it.
func (d *direction) apply(obj map[string]any) (map[string]any, error) {
	out := jsonvalue.DeepCopyObject(obj)
	values := make([]any, len(d.moves))
	found := make([]bool, len(d.moves))
	for i, m := range d.moves {
		values[i], found[i] = m.from.get(obj)
		m.from.remove(out)
	}
	for _, p := range d.dropped {
		p.remove(out)
	}
	for i, m := range d.moves {
		if found[i] {
			m.to.set(out, jsonvalue.DeepCopy(values[i]))
		}
	}
	if err := d.compute(obj, out); err != nil {
		return nil, err
	}
	for _, c := range d.constants {
		if _, ok := c.path.get(out); !ok {
			c.path.set(out, jsonvalue.DeepCopy(c.value))
		}
	}
	structuralpruning.Prune(out, d.schema, true)
	out["apiVersion"] = d.apiVersion
	dropEmptyMetadata(out)
	return out, nil
}

// compute sets the computed fields of out from obj, which expressions
// see without the reserved annotations.
func (d *direction) compute(obj, out map[string]any) error {
	if len(d.computed) == 0 {
		return nil
	}
	self := withoutReserved(obj)
	for _, c := range d.computed {
		v, ok, err := c.expr.eval(self)
		if err != nil {
			return fmt.Errorf("%s: %s: evaluating the expression for %s of %s: %w", d.step, c.rule, c.path, d.dst, err)
		}
		c.path.remove(out)
		if ok {
			c.path.set(out, v)
		}
	}
	return nil
}
