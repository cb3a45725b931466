package apiextensions

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"

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
	// conv converts objects stored in another version to this one and
	// back to the storage version; served caches its results when they
	// depend on the object alone (nil otherwise).
	conv   Converter
	served *servedCache
}

// newVersionSchema compiles the schema of version of crd as
// kube-apiserver's custom resource handler does.
func newVersionSchema(crd *apiextensionsv1.CustomResourceDefinition, version *apiextensionsv1.CustomResourceDefinitionVersion, conv Converter) (*versionSchema, error) {
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version.Name, Kind: crd.Spec.Names.Kind}
	if conv == nil {
		conv = noneConverter{group: crd.Spec.Group}
	}
	vs := &versionSchema{gvk: gvk, storage: storageVersion(crd), preserveUnknown: crd.Spec.PreserveUnknownFields, conv: conv}
	if deterministic(conv) {
		vs.served = newServedCache()
	}
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
// stored custom resource: converted from the version it was stored in to
// this one by the CRD's conversion, then coerced to this version's
// schema, which drops malformed metadata instead of failing.
func (vs *versionSchema) Stored(obj map[string]any) error {
	return vs.StoredAll([]map[string]any{obj})
}

// StoredAll is Stored for the objects of a list or a batch of events: a
// converter that makes a round trip (a webhook) makes one for them all.
func (vs *versionSchema) StoredAll(objs []map[string]any) error {
	conv, err := convertTo(vs.conv, vs.gvk.Group, objs, vs.gvk.Version)
	if err != nil {
		return err
	}
	for i, obj := range objs {
		if c := conv[i]; !sameMap(c, obj) {
			clear(obj)
			maps.Copy(obj, c)
		}
		vs.storedForm(obj)
	}
	return nil
}

// storedForm coerces obj, already in this version, to its schema.
func (vs *versionSchema) storedForm(obj map[string]any) {
	_, _ = vs.coerce(obj, true)
	obj["apiVersion"] = vs.gvk.GroupVersion().String()
	if md, ok := obj["metadata"].(map[string]any); ok {
		if _, ok := md["generation"]; !ok {
			md["generation"] = int64(1) // objects from before generations existed
		}
	}
}

// ToStorage implements resource.Schema: obj, in this version, converted
// to the storage version by the CRD's conversion.
func (vs *versionSchema) ToStorage(obj map[string]any) (map[string]any, error) {
	out, err := convertTo(vs.conv, vs.gvk.Group, []map[string]any{obj}, vs.storage)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// ConvertTo implements resource.Schema.
func (vs *versionSchema) ConvertTo(obj map[string]any, version string) (map[string]any, error) {
	out, err := convertTo(vs.conv, vs.gvk.Group, []map[string]any{obj}, version)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// sameMap reports whether a and b are the same map value.
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
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
func (vs *versionSchema) CachedServed(stored []byte) ([]byte, bool) {
	if vs.served == nil {
		return nil, false
	}
	return vs.served.get(stored)
}

// RememberServed records served as the served form of stored, unless the
// conversion's answers may change.
func (vs *versionSchema) RememberServed(stored, served []byte) {
	if vs.served != nil {
		vs.served.put(stored, served)
	}
}

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
