package apiextensions

import (
	"context"
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/apiextensions/declarative"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// policyGroupKind is ConversionPolicy's group and kind.
var policyGroupKind = schema.GroupKind{Group: declarative.Group, Kind: "ConversionPolicy"}

// PolicyResource describes raftapi.io/v1 conversionpolicies. It is served
// as a custom resource of a built-in definition (policyDefinition), so
// its objects are pruned, defaulted and validated by that schema; the
// meaning of a policy is checked against the CRD it names by the Admit
// hook that NewPolicyAdmission returns.
func PolicyResource() *resource.Resource {
	crd := policyDefinition()
	r, err := versionResource(crd, &crd.Spec.Versions[0], nil)
	if err != nil {
		panic(fmt.Sprintf("apiextensions: the ConversionPolicy schema: %v", err)) // a static definition
	}
	return r
}

// NewPolicyAdmission returns the Admit hook of the policy resource: a
// policy is accepted only when the CRD it names exists and the policy
// converts between its versions (declarative.Validate).
func NewPolicyAdmission(storage registry.Storage, crds *resource.Resource) resource.AdmitFunc {
	return func(ctx context.Context, obj, _ runtime.Object) error {
		p, err := policyFromObject(obj)
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		stored, err := storage.Get(ctx, crds.Key("", p.Name), registry.ReadOptions{Consistency: registry.MostRecent})
		if err != nil {
			errs := field.ErrorList{field.NotFound(field.NewPath("metadata", "name"), p.Name)}
			return apierrors.NewInvalid(policyGroupKind, p.Name, errs)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(stored.Data, crd); err != nil {
			return apierrors.NewInternalError(err)
		}
		if errs := declarative.Validate(crd, p); len(errs) > 0 {
			return apierrors.NewInvalid(policyGroupKind, p.Name, errs)
		}
		return nil
	}
}

// policyFromObject decodes a stored or admitted ConversionPolicy.
func policyFromObject(obj runtime.Object) (*ConversionPolicy, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("a ConversionPolicy must be unstructured, not %T", obj)
	}
	p := &ConversionPolicy{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, p); err != nil {
		return nil, err
	}
	return p, nil
}

// policyDefinition is the built-in definition ConversionPolicy is served
// from.
func policyDefinition() *apiextensionsv1.CustomResourceDefinition {
	names := apiextensionsv1.CustomResourceDefinitionNames{
		Plural: "conversionpolicies", Singular: "conversionpolicy", Kind: "ConversionPolicy",
		ListKind: "ConversionPolicyList", Categories: []string{"raftapi"},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: declarative.Group, Names: names, Scope: apiextensionsv1.ClusterScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: policySchema()},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
				},
			}},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: names},
	}
}

// policySchema is ConversionPolicy's OpenAPI schema.
func policySchema() *apiextensionsv1.JSONSchemaProps {
	str := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "string", MinLength: ptr(int64(1)), Description: desc}
	}
	list := func(desc string, item apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "array", Description: desc, XListType: ptr("atomic"),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item}}
	}
	obj := func(required []string, props map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Required: required, Properties: props}
	}
	version := str("The version the field belongs to: the step's from or to.")
	path := str("A dotted field path, such as spec.size.")
	step := obj([]string{"from", "to"}, map[string]apiextensionsv1.JSONSchemaProps{
		"from": str("The older of the two versions."),
		"to":   str("The newer of the two versions."),
		"renames": list("Fields moved or renamed between the two versions.", obj([]string{"from", "to"}, map[string]apiextensionsv1.JSONSchemaProps{
			"from": str("The field's path in the from version."), "to": str("The field's path in the to version."),
		})),
		"constants": list("Fields one version lacks, set to a constant when converting into the other.", obj([]string{"version", "path", "value"}, map[string]apiextensionsv1.JSONSchemaProps{
			"version": version, "path": path,
			"value": {Description: "Any JSON value.", XPreserveUnknownFields: ptr(true)},
		})),
		"computed": list("Fields computed by a CEL expression over the object in the other version (self).", obj([]string{"version", "path", "expression"}, map[string]apiextensionsv1.JSONSchemaProps{
			"version": version, "path": path, "expression": str("A CEL expression over self, the object being converted."),
		})),
		"dropped": list("Fields of one version the other has no place for; they are kept in an annotation.", obj([]string{"version", "path"}, map[string]apiextensionsv1.JSONSchemaProps{
			"version": version, "path": path,
		})),
	})
	spec := obj([]string{"steps"}, map[string]apiextensionsv1.JSONSchemaProps{
		"steps": list("The steps between adjacent versions, chaining every version of the definition.", step),
	})
	spec.Description = "How the objects of the CustomResourceDefinition named as this policy convert between its versions."
	root := obj([]string{"spec"}, map[string]apiextensionsv1.JSONSchemaProps{
		"apiVersion": {Type: "string"}, "kind": {Type: "string"}, "metadata": {Type: "object"}, "spec": spec,
	})
	root.Description = "ConversionPolicy declares the conversion between the versions of a CustomResourceDefinition, in place of a conversion webhook."
	return &root
}

func ptr[T any](v T) *T { return &v }
