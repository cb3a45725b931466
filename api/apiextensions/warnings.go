package apiextensions

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/raftapi/raftapi/api/codec"
)

// The warnings kube-apiserver sends with a CRD write or a custom resource
// write that it accepts.

// WarningsOnCreate warns about the formats of crd's schemas the server
// does not know and about list-type sets of objects or arrays, as kube's
// CRD strategy does.
func (crdStrategy) WarningsOnCreate(obj runtime.Object) []string {
	c, ok := obj.(*v1CRD)
	if !ok {
		return nil
	}
	internal, err := toInternal(c)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range unrecognizedFormats(&internal.Spec) {
		out = append(out, fmt.Sprintf("unrecognized format %q", f))
	}
	return append(out, nonScalarSetWarnings(&internal.Spec)...)
}

// WarningsOnUpdate is WarningsOnCreate for what the update introduces.
func (crdStrategy) WarningsOnUpdate(obj, old runtime.Object) []string {
	c, ok := obj.(*v1CRD)
	o, okOld := old.(*v1CRD)
	if !ok || !okOld {
		return nil
	}
	internal, err := toInternal(c)
	if err != nil {
		return nil
	}
	oldInternal, err := toInternal(o)
	if err != nil {
		return nil
	}
	oldFormats := sets.New(unrecognizedFormats(&oldInternal.Spec)...)
	var out []string
	for _, f := range unrecognizedFormats(&internal.Spec) {
		if !oldFormats.Has(f) {
			out = append(out, fmt.Sprintf("unrecognized format %q", f))
		}
	}
	oldSets := sets.New(nonScalarSetWarnings(&oldInternal.Spec)...)
	for _, w := range nonScalarSetWarnings(&internal.Spec) {
		if !oldSets.Has(w) {
			out = append(out, w)
		}
	}
	return out
}

// schemas returns the schemas of spec: the shared one and each version's.
func schemas(spec *apiextensionsinternal.CustomResourceDefinitionSpec) []*apiextensionsinternal.JSONSchemaProps {
	var out []*apiextensionsinternal.JSONSchemaProps
	if spec.Validation != nil && spec.Validation.OpenAPIV3Schema != nil {
		out = append(out, spec.Validation.OpenAPIV3Schema)
	}
	for _, v := range spec.Versions {
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			out = append(out, v.Schema.OpenAPIV3Schema)
		}
	}
	return out
}

// unrecognizedFormats lists the formats of spec's schemas that the
// validator does not know at the default CEL compatibility version.
func unrecognizedFormats(crdSpec *apiextensionsinternal.CustomResourceDefinitionSpec) []string {
	compat := environment.DefaultCompatibilityVersion()
	var out []string
	for _, s := range schemas(crdSpec) {
		validation.SchemaHas(s, func(p *apiextensionsinternal.JSONSchemaProps) bool {
			if p.Format != "" {
				probe := &spec.Schema{SchemaProps: spec.SchemaProps{Format: p.Format, Type: []string{p.Type}}}
				out = append(out, apiservervalidation.GetUnrecognizedFormats(probe, compat)...)
			}
			return false
		})
	}
	return out
}

// nonScalarSetWarnings warns, once each and sorted, about
// x-kubernetes-list-type: set lists of objects or arrays.
func nonScalarSetWarnings(spec *apiextensionsinternal.CustomResourceDefinitionSpec) []string {
	seen := sets.New[string]()
	for _, s := range schemas(spec) {
		validation.SchemaHas(s, func(p *apiextensionsinternal.JSONSchemaProps) bool {
			if p.XListType != nil && *p.XListType == "set" && p.Items != nil && p.Items.Schema != nil {
				switch p.Items.Schema.Type {
				case "object", "array":
					seen.Insert(fmt.Sprintf("x-kubernetes-list-type: set for items of type %q is not supported by server-side apply or CEL validation rules", p.Items.Schema.Type))
				}
			}
			return false
		})
	}
	return sets.List(seen)
}

// standardFinalizers are the finalizers kube defines without a domain.
var standardFinalizers = []string{metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents, string(corev1.FinalizerKubernetes)}

// WarningsOnCreate warns about the finalizers of a new custom resource
// that are not domain-qualified, as kube's custom resource strategy does.
func (s *crStrategy) WarningsOnCreate(obj runtime.Object) []string {
	return finalizerWarnings(obj, nil)
}

// WarningsOnUpdate warns about the finalizers the update adds.
func (s *crStrategy) WarningsOnUpdate(obj, old runtime.Object) []string {
	return finalizerWarnings(obj, old)
}

// finalizerWarnings warns about each finalizer of obj that old lacks and
// that is not a qualified name, or has no domain.
func finalizerWarnings(obj, old runtime.Object) []string {
	added := sets.New(codec.Accessor(obj).GetFinalizers()...)
	if old != nil {
		added = added.Difference(sets.New(codec.Accessor(old).GetFinalizers()...))
	}
	fldPath := field.NewPath("metadata", "finalizers")
	var out []string
	for _, f := range sets.List(added) {
		for _, msg := range utilvalidation.IsQualifiedName(f) {
			out = append(out, fmt.Sprintf("%s: %q: %s", fldPath, f, msg))
		}
		if strings.Contains(f, "/") || slices.Contains(standardFinalizers, f) {
			continue
		}
		if strings.Contains(f, ".") {
			out = append(out, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers", fldPath, f))
		} else {
			out = append(out, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", fldPath, f))
		}
	}
	return out
}
