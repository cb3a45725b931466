package apiextensions

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	openapiv2 "k8s.io/apiextensions-apiserver/pkg/controller/openapi/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// versionSchema is the compiled schema of one version of a custom
// resource: the structural schema that prunes and defaults, the OpenAPI
// validators of the object and of its status, and the CEL rules. It
// implements resource.Schema. It is built once per CRD generation and
// never modified.
type versionSchema struct {
	gvk schema.GroupVersionKind
	// storage is the CRD's storage version.
	storage string
	// structural is nil when the CRD keeps unknown fields everywhere
	// (spec.preserveUnknownFields, v1beta1 only) or has no schema.
	structural      *structuralschema.Structural
	preserveUnknown bool
	validator       apiservervalidation.SchemaValidator
	statusValidator apiservervalidation.SchemaValidator
	cel             *cel.Validator
	fingerprint     string
	served          *servedCache
}

// newVersionSchema compiles the schema of version of crd as
// kube-apiserver's custom resource handler does.
func newVersionSchema(crd *apiextensionsv1.CustomResourceDefinition, version *apiextensionsv1.CustomResourceDefinitionVersion) (*versionSchema, error) {
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version.Name, Kind: crd.Spec.Names.Kind}
	vs := &versionSchema{gvk: gvk, storage: storageVersion(crd), preserveUnknown: crd.Spec.PreserveUnknownFields, served: newServedCache()}
	var props *apiextensionsinternal.JSONSchemaProps
	if version.Schema != nil && version.Schema.OpenAPIV3Schema != nil {
		internal := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(version.Schema, internal, nil); err != nil {
			return nil, fmt.Errorf("converting the schema of %s: %w", gvk, err)
		}
		props = internal.OpenAPIV3Schema
		s, err := structuralschema.NewStructural(props)
		if err != nil && !vs.preserveUnknown {
			return nil, fmt.Errorf("the schema of %s is not structural: %w", gvk, err)
		}
		if err == nil {
			s = s.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(s); err != nil {
				return nil, fmt.Errorf("pruning the defaults of %s: %w", gvk, err)
			}
			vs.structural = s
			vs.cel = cel.NewValidator(s, true, celconfig.PerCallLimit)
		}
	}
	var err error
	if vs.validator, _, err = apiservervalidation.NewSchemaValidator(props); err != nil {
		return nil, fmt.Errorf("the schema of %s: %w", gvk, err)
	}
	if props != nil {
		if status, ok := props.Properties["status"]; ok {
			if vs.statusValidator, _, err = apiservervalidation.NewSchemaValidator(&status); err != nil {
				return nil, fmt.Errorf("the status schema of %s: %w", gvk, err)
			}
		}
	}
	vs.fingerprint = schemaFingerprint(crd, version)
	return vs, nil
}

// schemaFingerprint hashes what the compiled schema depends on.
func schemaFingerprint(crd *apiextensionsv1.CustomResourceDefinition, version *apiextensionsv1.CustomResourceDefinitionVersion) string {
	b, _ := json.Marshal(struct {
		UID     any
		Version *apiextensionsv1.CustomResourceDefinitionVersion
		Keep    bool
	}{crd.UID, version, crd.Spec.PreserveUnknownFields})
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// Decoded implements resource.Schema: kube-apiserver's decoding of a
// custom resource request body, with unknown fields reported.
func (vs *versionSchema) Decoded(obj map[string]any) ([]string, error) {
	return vs.coerce(obj, false)
}

// Stored implements resource.Schema: kube-apiserver's decoding of a
// stored custom resource, which drops malformed metadata instead of
// failing, then the served version's apiVersion (None conversion).
func (vs *versionSchema) Stored(obj map[string]any) {
	_, _ = vs.coerce(obj, true)
	obj["apiVersion"] = vs.gvk.GroupVersion().String()
	if md, ok := obj["metadata"].(map[string]any); ok {
		if _, ok := md["generation"]; !ok {
			md["generation"] = int64(1) // objects from before generations existed
		}
	}
}

// coerce is kube-apiserver's unstructuredSchemaCoercer followed by its
// defaulter: metadata decoded as ObjectMeta, unknown fields pruned,
// non-nullable nulls dropped, embedded metadata coerced, defaults applied.
func (vs *versionSchema) coerce(obj map[string]any, stored bool) (unknown []string, err error) {
	kind, hasKind := obj["kind"]
	apiVersion, hasAPIVersion := obj["apiVersion"]
	meta, hasMeta, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{
		DropMalformedFields: stored, ReturnUnknownFieldPaths: !stored,
	})
	if err != nil {
		return nil, err
	}
	unknown = append(unknown, metaUnknown...)
	if !vs.preserveUnknown && vs.structural != nil {
		unknown = append(unknown, structuralpruning.PruneWithOptions(obj, vs.structural, true,
			structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: !stored})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, vs.structural)
	}
	fieldErr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, vs.structural, false, schemaobjectmeta.CoerceOptions{
		DropInvalidFields: stored, ReturnUnknownFieldPaths: !stored,
	})
	if fieldErr != nil {
		return nil, fieldErr
	}
	unknown = append(unknown, paths...)
	if hasKind {
		obj["kind"] = kind
	}
	if hasAPIVersion {
		obj["apiVersion"] = apiVersion
	}
	if hasMeta {
		if err := schemaobjectmeta.SetObjectMeta(obj, meta); err != nil {
			return nil, err
		}
	}
	if vs.structural != nil {
		structuraldefaulting.Default(obj, vs.structural)
	}
	return unknown, nil
}

// OpenAPI implements resource.Schema, as kube-apiserver publishes custom
// resource schemas: unfolded; for Swagger 2.0 without value validations,
// nullable and what v2 cannot say, and without properties at all when
// the object keeps unknown fields (kubectl would refuse them).
func (vs *versionSchema) OpenAPI(v3 bool) *spec.Schema {
	s := vs.structural
	if s == nil {
		return nil
	}
	if !v3 && (s.XPreserveUnknownFields || vs.preserveUnknown) {
		return nil
	}
	s = s.Unfold()
	if !v3 {
		s = openapiv2.ToStructuralOpenAPIV2(s.StripValueValidations().StripNullable())
	}
	return jsonSchema(s.ToKubeOpenAPI())
}

// jsonSchema returns s as decoded from its JSON: extension values become
// JSON types ([]any, map[string]any), which is how readers of a served
// document (and managedfields' type converter) expect them.
func jsonSchema(s *spec.Schema) *spec.Schema {
	b, err := json.Marshal(s)
	if err != nil {
		return s
	}
	out := &spec.Schema{}
	if err := json.Unmarshal(b, out); err != nil {
		return s
	}
	return out
}

// CachedServed returns the served form of stored if this version
// computed it recently; the caller must not modify it.
func (vs *versionSchema) CachedServed(stored []byte) ([]byte, bool) { return vs.served.get(stored) }

// RememberServed records served as the served form of stored.
func (vs *versionSchema) RememberServed(stored, served []byte) { vs.served.put(stored, served) }

// StorageVersion implements resource.Schema.
func (vs *versionSchema) StorageVersion() string { return vs.storage }

// storageVersion is the version crd stores its objects in.
func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// Fingerprint implements resource.Schema.
func (vs *versionSchema) Fingerprint() string { return vs.fingerprint }
