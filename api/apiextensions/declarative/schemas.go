package declarative

import (
	"fmt"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// versionSchemas returns the structural schema of every version of crd,
// by name. A declarative conversion needs one for each version: it is
// what says which fields a version has.
func versionSchemas(crd *apiextensionsv1.CustomResourceDefinition) (map[string]*structuralschema.Structural, error) {
	out := make(map[string]*structuralschema.Structural, len(crd.Spec.Versions))
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		s, err := structuralOf(v.Schema)
		if err != nil {
			return nil, fmt.Errorf("version %s of %s: %w", v.Name, crd.Name, err)
		}
		out[v.Name] = s
	}
	return out, nil
}

// structuralOf returns the structural form of a version's schema.
func structuralOf(v *apiextensionsv1.CustomResourceValidation) (*structuralschema.Structural, error) {
	if v == nil || v.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("a declarative conversion needs a schema for every version")
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v, internal, nil); err != nil {
		return nil, fmt.Errorf("converting the schema: %w", err)
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("the schema is not structural: %w", err)
	}
	return s, nil
}
