package declarative

import (
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// field returns the path raw names in version and the field's schema, or
// reports why it names none.
func (c *compiler) field(version, raw string, fld *field.Path) (fieldPath, *structuralschema.Structural, bool) {
	p, err := parsePath(raw)
	if err != nil {
		c.errs = append(c.errs, field.Invalid(fld, raw, err.Error()))
		return nil, nil, false
	}
	s := schemaAt(c.schemas[version], p)
	if s == nil {
		c.errs = append(c.errs, field.Invalid(fld, raw, fmt.Sprintf("version %s has no field %s", version, raw)))
		return nil, nil, false
	}
	return p, s, true
}

// side reports whether version is one of st's two versions, and reports
// it when it is not.
func (c *compiler) side(st *ConversionStep, version string, fld *field.Path) bool {
	if version != st.From && version != st.To {
		c.errs = append(c.errs, field.NotSupported(fld, version, []string{st.From, st.To}))
		return false
	}
	return true
}

// entry checks one entry of st that names a field of one of its
// versions: the version is st's From or To, and the path exists in it.
// It returns the parsed path and the field's schema; false means the
// errors are recorded.
func (c *compiler) entry(st *ConversionStep, version, path string, fld *field.Path) (fieldPath, *structuralschema.Structural, bool) {
	if !c.side(st, version, fld.Child("version")) {
		return nil, nil, false
	}
	return c.field(version, path, fld.Child("path"))
}

// into returns the direction of st that converts into version.
func into(st *ConversionStep, version string, fwd, bwd *direction) *direction {
	if version == st.To {
		return fwd
	}
	return bwd
}

// renames compiles st's renames into both ways.
func (c *compiler) renames(st *ConversionStep, fld *field.Path, fwd, bwd *direction) {
	for i, r := range st.Renames {
		rf := fld.Child("renames").Index(i)
		from, fs, ok1 := c.field(st.From, r.From, rf.Child("from"))
		to, ts, ok2 := c.field(st.To, r.To, rf.Child("to"))
		if !ok1 || !ok2 {
			continue
		}
		if fs.Type != "" && ts.Type != "" && fs.Type != ts.Type {
			c.errs = append(c.errs, field.Invalid(rf.Child("to"), r.To, fmt.Sprintf(
				"is %s in %s but %s is %s in %s: a rename moves a value as it is; compute it instead", ts.Type, st.To, r.From, fs.Type, st.From)))
			continue
		}
		fwd.moves = append(fwd.moves, move{from: from, to: to})
		bwd.moves = append(bwd.moves, move{from: to, to: from})
	}
}

// dropped compiles st's dropped fields into the way out of their version.
func (c *compiler) dropped(st *ConversionStep, fld *field.Path, fwd, bwd *direction) {
	for i, d := range st.Dropped {
		if p, _, ok := c.entry(st, d.Version, d.Path, fld.Child("dropped").Index(i)); ok {
			out := into(st, d.Version, fwd, bwd).back
			out.dropped = append(out.dropped, p)
		}
	}
}

// computed compiles st's computed fields into the way into their
// version, over the object in the other one.
func (c *compiler) computed(st *ConversionStep, fld *field.Path, fwd, bwd *direction) {
	for i, x := range st.Computed {
		xf := fld.Child("computed").Index(i)
		p, s, ok := c.entry(st, x.Version, x.Path, xf)
		if !ok {
			continue
		}
		d := into(st, x.Version, fwd, bwd)
		env, err := c.env(d.src)
		if err != nil {
			c.errs = append(c.errs, field.Invalid(xf.Child("expression"), x.Expression, fmt.Sprintf("version %s: %v", d.src, err)))
			continue
		}
		expr, err := env.compile(x.Expression, s, c.stored)
		if err != nil {
			c.errs = append(c.errs, field.Invalid(xf.Child("expression"), x.Expression, err.Error()))
			continue
		}
		d.computed = append(d.computed, computed{path: p, expr: expr, rule: xf.String()})
	}
}
