package declarative

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// compiler builds the converter of one policy for one CRD, collecting
// every error of the policy on the way.
type compiler struct {
	crd     *apiextensionsv1.CustomResourceDefinition
	schemas map[string]*structuralschema.Structural
	envs    map[string]*selfEnv
	// stored compiles expressions as already accepted ones (New), not as
	// new ones (Validate).
	stored bool
	errs   field.ErrorList
}

// compile checks p against crd and, when it holds, returns its converter.
func compile(crd *apiextensionsv1.CustomResourceDefinition, p *ConversionPolicy, stored bool) (*Converter, field.ErrorList) {
	stepsPath := field.NewPath("spec", "steps")
	schemas, err := versionSchemas(crd)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(stepsPath, crd.Name, err.Error())}
	}
	c := &compiler{crd: crd, schemas: schemas, envs: map[string]*selfEnv{}, stored: stored}
	versions := make([]string, len(crd.Spec.Versions))
	for i, v := range crd.Spec.Versions {
		versions[i] = v.Name
	}
	order, errs := chainOf(versions, p.Spec.Steps, stepsPath)
	if len(errs) > 0 {
		return nil, errs
	}
	conv := &Converter{group: crd.Spec.Group, order: order, at: map[string]int{}}
	for i, v := range order {
		conv.at[v] = i
	}
	conv.up = make([]*direction, len(order)-1)
	conv.down = make([]*direction, len(order)-1)
	for i := range p.Spec.Steps {
		fwd, bwd := c.step(&p.Spec.Steps[i], stepsPath.Index(i))
		if k := conv.at[fwd.src]; k+1 < len(order) && order[k+1] == fwd.dst {
			conv.up[k], conv.down[k] = fwd, bwd
		} else {
			conv.up[conv.at[bwd.src]], conv.down[conv.at[bwd.src]] = bwd, fwd
		}
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return conv, nil
}

// step compiles both ways of st.
func (c *compiler) step(st *ConversionStep, fld *field.Path) (fwd, bwd *direction) {
	name := fmt.Sprintf("%s (%s to %s)", fld, st.From, st.To)
	fwd = c.direction(st.From, st.To, name)
	bwd = c.direction(st.To, st.From, name)
	fwd.back, bwd.back = bwd, fwd
	c.checkNames(st, fld)
	c.renames(st, fld, fwd, bwd)
	c.dropped(st, fld, fwd, bwd)
	c.constants(st, fld, fwd, bwd)
	c.computed(st, fld, fwd, bwd)
	c.accounted(st, fld)
	return fwd, bwd
}

// direction returns the bare direction from src to dst.
func (c *compiler) direction(src, dst, step string) *direction {
	return &direction{
		src: src, dst: dst, step: step, schema: c.schemas[dst],
		apiVersion: schema.GroupVersion{Group: c.crd.Spec.Group, Version: dst}.String(),
	}
}

// env returns the CEL environment of expressions over objects of version.
func (c *compiler) env(version string) (*selfEnv, error) {
	if e, ok := c.envs[version]; ok {
		return e, nil
	}
	e, err := newSelfEnv(c.schemas[version])
	if err != nil {
		return nil, err
	}
	c.envs[version] = e
	return e, nil
}
