package declarative

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// named is a field a rule of a step names, in one of its versions.
type named struct {
	// sets is set for a rename's or a computed field, which converting
	// into the version sets whatever a copy would put there.
	sets    bool
	version string
	path    fieldPath
	fld     *field.Path
}

// namedFields lists the fields the rules of st name, in order, skipping
// paths that do not parse (the rule's own check reports them).
func namedFields(st *ConversionStep, fld *field.Path) []named {
	var out []named
	add := func(version, raw string, f *field.Path, sets bool) {
		if p, err := parsePath(raw); err == nil {
			out = append(out, named{sets: sets, version: version, path: p, fld: f})
		}
	}
	for i, r := range st.Renames {
		add(st.From, r.From, fld.Child("renames").Index(i).Child("from"), true)
		add(st.To, r.To, fld.Child("renames").Index(i).Child("to"), true)
	}
	for i, k := range st.Constants {
		add(k.Version, k.Path, fld.Child("constants").Index(i).Child("path"), false)
	}
	for i, x := range st.Computed {
		add(x.Version, x.Path, fld.Child("computed").Index(i).Child("path"), true)
	}
	for i, d := range st.Dropped {
		add(d.Version, d.Path, fld.Child("dropped").Index(i).Child("path"), false)
	}
	return out
}

// checkNames refuses a field named twice in one version, or inside a
// field another rule names: each field has one rule.
func (c *compiler) checkNames(st *ConversionStep, fld *field.Path) {
	names := namedFields(st, fld)
	for i, n := range names {
		for _, m := range names[:i] {
			switch {
			case m.version != n.version:
			case n.path.within(m.path) && len(n.path) == len(m.path):
				c.errs = append(c.errs, field.Duplicate(n.fld, n.path.String()))
			case n.path.within(m.path) || m.path.within(n.path):
				inner, outer := n, m
				if m.path.within(n.path) {
					inner, outer = m, n
				}
				c.errs = append(c.errs, field.Invalid(inner.fld, inner.path.String(), fmt.Sprintf(
					"%s of %s is inside %s, which %s names: a field has one rule, and a rule on a field covers what it holds",
					inner.path, n.version, outer.path, outer.fld)))
			}
		}
	}
}

// namesOf returns the paths the rules of st name in version; with
// setting, only those whose rule replaces what a copy would put there
// (a constant only fills a field left unset, a dropped field is dropped
// on the way out of its version).
func namesOf(names []named, version string, setting bool) []fieldPath {
	var out []fieldPath
	for _, n := range names {
		if n.version == version && (n.sets || !setting) {
			out = append(out, n.path)
		}
	}
	return out
}
