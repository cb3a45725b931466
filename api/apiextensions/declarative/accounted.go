package declarative

import (
	"fmt"
	"maps"
	"slices"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// accounted reports every field of either version of st that the step
// neither copies (the same path, of the same type, in the other version,
// where no rule sets it) nor names in a rule: a conversion must say where
// each field goes.
func (c *compiler) accounted(st *ConversionStep, fld *field.Path) {
	names := namedFields(st, fld)
	for _, side := range [][2]string{{st.From, st.To}, {st.To, st.From}} {
		a := accounting{
			version: side[0], other: side[1], otherSchema: c.schemas[side[1]],
			names: namesOf(names, side[0], false), otherNames: namesOf(names, side[1], true),
		}
		for _, u := range a.unaccounted(c.schemas[side[0]], nil) {
			c.errs = append(c.errs, field.Required(fld, u))
		}
	}
}

// accounting walks the fields of one version of a step.
type accounting struct {
	version, other string
	otherSchema    *structuralschema.Structural
	// names are what the step's rules name in version; otherNames what
	// they set in other, where a copy would be overwritten.
	names, otherNames []fieldPath
}

// unaccounted returns a message for every field at or under p (of schema
// s) that the step does not account for.
func (a *accounting) unaccounted(s *structuralschema.Structural, p fieldPath) []string {
	if len(p) > 0 && slices.ContainsFunc(a.names, func(n fieldPath) bool { return p.within(n) }) {
		return nil
	}
	if len(p) > 0 && leaf(s) {
		if why := a.copied(s, p); why != "" {
			return []string{fmt.Sprintf("field %s of %s %s: rename it, compute it, set it to a constant or drop it", p, a.version, why)}
		}
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if len(p) == 0 && carried[name] {
			continue
		}
		prop := s.Properties[name]
		out = append(out, a.unaccounted(&prop, append(slices.Clip(p), name))...)
	}
	return out
}

// copied returns why the leaf p (of schema s) is not copied as it is to
// the other version, "" when it is.
func (a *accounting) copied(s *structuralschema.Structural, p fieldPath) string {
	o := schemaAt(a.otherSchema, p)
	switch {
	case o == nil:
		return "has no place in " + a.other
	case s.Type != "" && o.Type != "" && s.Type != o.Type:
		return fmt.Sprintf("is %s but %s in %s", s.Type, o.Type, a.other)
	case slices.ContainsFunc(a.otherNames, func(n fieldPath) bool { return p.within(n) || n.within(p) }):
		return "is where a rule of " + a.other + " puts another value"
	}
	return ""
}

// leaf reports whether the walk stops at a field of schema s: a value,
// an array, a map, an object that keeps unknown fields or declares none.
func leaf(s *structuralschema.Structural) bool {
	return len(s.Properties) == 0 || s.Items != nil || s.AdditionalProperties != nil || s.XPreserveUnknownFields
}
