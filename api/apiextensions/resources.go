package apiextensions

import (
	"fmt"
	"slices"
	"strings"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/raftapi/raftapi/api/resource"
)

// Served reports whether the resources of crd are served: kube-apiserver
// serves a CRD once its names are accepted or it is established.
func Served(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return apiextensionshelpers.IsCRDConditionTrue(crd, apiextensionsv1.NamesAccepted) ||
		apiextensionshelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established)
}

// terminating reports whether crd is being deleted: its instances are
// going and no new ones may be created.
func terminating(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return !crd.DeletionTimestamp.IsZero() || apiextensionshelpers.IsCRDConditionTrue(crd, apiextensionsv1.Terminating)
}

// Resources describes the served versions of crd as resources, named by
// its accepted names. Every version shares the storage keys of the group
// and plural, so an object written in one version is read in all of them,
// converted by the CRD's conversion: policy's, when policy (which may be
// nil) is the ConversionPolicy named as crd, else spec.conversion's.
func Resources(crd *apiextensionsv1.CustomResourceDefinition, policy *ConversionPolicy) ([]*resource.Resource, error) {
	conv, err := newConverter(crd, policy)
	if err != nil {
		return nil, err
	}
	var out []*resource.Resource
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if !v.Served {
			continue
		}
		r, err := versionResource(crd, v, conv)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// versionResource describes one version of crd.
func versionResource(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion, conv Converter) (*resource.Resource, error) {
	names := crd.Status.AcceptedNames
	vs, err := newVersionSchema(crd, v, conv)
	if err != nil {
		return nil, err
	}
	cols, err := printerColumns(v.AdditionalPrinterColumns)
	if err != nil {
		return nil, err
	}
	st := &crStrategy{schema: vs, terminating: terminating(crd)}
	r := &resource.Resource{
		Group:      crd.Spec.Group,
		Version:    v.Name,
		Kind:       names.Kind,
		ListKind:   names.ListKind,
		Plural:     names.Plural,
		Singular:   names.Singular,
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		ShortNames: names.ShortNames,
		Categories: names.Categories,
		Columns:    cols,
		OmitAge:    true,
		Fields:     selectableFields(v.SelectableFields),
		Strategy:   st,
		Schema:     vs,
		Warnings:   deprecationWarnings(crd, v),
		// kube's custom resource strategy: 1 on create, +1 on a change
		// beyond metadata (and status, with the status subresource).
		TracksGeneration: true,
	}
	if sub := v.Subresources; sub != nil {
		if sub.Status != nil {
			st.hasStatus = true
			r.Subresources = append(r.Subresources, resource.Subresource{Name: "status", Strategy: crStatusStrategy{st}})
		}
		if sub.Scale != nil {
			st.scale = &apiextensionsinternal.CustomResourceSubresourceScale{}
			if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(sub.Scale, st.scale, nil); err != nil {
				return nil, fmt.Errorf("the scale subresource of %s: %w", crd.Name, err)
			}
			r.Subresources = append(r.Subresources, resource.Subresource{Name: "scale", Scale: &resource.Scale{
				SpecReplicasPath:   sub.Scale.SpecReplicasPath,
				StatusReplicasPath: sub.Scale.StatusReplicasPath,
				LabelSelectorPath:  derefString(sub.Scale.LabelSelectorPath),
			}})
		}
	}
	return r, nil
}

// deprecationWarnings are the Warning headers of every request to a
// deprecated version: its deprecationWarning, or kube-apiserver's default
// naming the newest served version that is not deprecated.
func deprecationWarnings(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) []string {
	if !v.Deprecated {
		return nil
	}
	if v.DeprecationWarning != nil {
		return []string{*v.DeprecationWarning}
	}
	msg := fmt.Sprintf("%s/%s %s is deprecated", crd.Spec.Group, v.Name, crd.Spec.Names.Kind)
	var newer []string
	for _, o := range crd.Spec.Versions {
		if o.Served && !o.Deprecated && version.CompareKubeAwareVersionStrings(v.Name, o.Name) < 0 {
			newer = append(newer, o.Name)
		}
	}
	if len(newer) == 0 {
		return []string{msg}
	}
	slices.SortFunc(newer, func(a, b string) int { return -version.CompareKubeAwareVersionStrings(a, b) })
	return []string{fmt.Sprintf("%s; use %s/%s %s", msg, crd.Spec.Group, newer[0], crd.Spec.Names.Kind)}
}

// selectableFields maps each selectable field ("spec.color", named by its
// JSONPath without the leading dot) to its dotted path.
func selectableFields(sf []apiextensionsv1.SelectableField) map[string]string {
	if len(sf) == 0 {
		return nil
	}
	out := make(map[string]string, len(sf))
	for _, f := range sf {
		name := strings.TrimPrefix(f.JSONPath, ".")
		out[name] = name
	}
	return out
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
