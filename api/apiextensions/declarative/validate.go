package declarative

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks p against crd, the definition it is named after, when p
// is written: p is named as crd; the steps chain every version of crd exactly once; each
// path names an object field of its version's schema (not metadata,
// apiVersion or kind, which every conversion carries); a constant is a
// valid value of its field; a CEL expression compiles over the object in
// the step's other version, with a result its field can hold, within
// kube-apiserver's estimated cost limit per expression; no field is named
// twice or inside another named field; and every field of each version
// of a step is accounted for: copied to the same path of the other
// version, or named by a rule. The errors are under spec.steps.
func Validate(crd *apiextensionsv1.CustomResourceDefinition, p *ConversionPolicy) field.ErrorList {
	var errs field.ErrorList
	if p.Name != crd.Name {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), p.Name, "must be the name of the CustomResourceDefinition it converts, "+crd.Name))
	}
	_, stepErrs := compile(crd, p, false)
	return append(errs, stepErrs...)
}
