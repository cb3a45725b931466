package apiextensions

import (
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/resource"
)

// CRDResource describes apiextensions.k8s.io/v1 customresourcedefinitions
// as kube-apiserver v1.37 serves them: cluster-scoped, short names crd and
// crds, in the api-extensions category, with a status subresource and the
// Table of kube's CRD table convertor, and metadata.generation moving with
// the spec. Metadata names are DNS subdomains;
// that a name is <plural>.<group> is checked by the strategy, with kube's
// message.
func CRDResource() *resource.Resource {
	return &resource.Resource{
		Group:        apiextensionsv1.GroupName,
		Version:      "v1",
		Kind:         "CustomResourceDefinition",
		ListKind:     "CustomResourceDefinitionList",
		Plural:       "customresourcedefinitions",
		Singular:     "customresourcedefinition",
		ShortNames:   []string{"crd", "crds"},
		Categories:   []string{"api-extensions"},
		New:          func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
		NewList:      func() runtime.Object { return &apiextensionsv1.CustomResourceDefinitionList{} },
		Columns:      crdColumns(),
		OmitAge:      true,
		Strategy:     crdStrategy{},
		ValidateName: apivalidation.NameIsDNSSubdomain,
		// kube's CRD strategy: 1 on create, +1 on a spec change.
		TracksGeneration: true,
		Subresources:     []resource.Subresource{{Name: "status", Strategy: crdStatusStrategy{}}},
	}
}

var metaDocs = metav1.ObjectMeta{}.SwaggerDoc()

// crdColumns are the columns of kube's CRD table convertor
// (pkg/registry/customresourcedefinition/tableconvertor): Name, Scope,
// Versions, Created At, and with priority 1 (kubectl -o wide) Group, Kind,
// ShortNames, Established.
func crdColumns() []resource.Column {
	name := crdColumn("Name", "string", metaDocs["name"], 0, stringCell("metadata.name"))
	name.Format = "name"
	return []resource.Column{
		name,
		crdColumn("Scope", "string", "Cluster/Namespaced", 0, stringCell("spec.scope")),
		crdColumn("Versions", "string", "Served versions", 0, versionsCell),
		crdColumn("Created At", "date", metaDocs["creationTimestamp"], 0, createdAtCell),
		crdColumn("Group", "string", "API group", 1, stringCell("spec.group")),
		crdColumn("Kind", "string", "CustomResource kind", 1, stringCell("spec.names.kind")),
		crdColumn("ShortNames", "string", "Short names", 1, shortNamesCell),
		crdColumn("Established", "boolean", "Established status", 1, establishedCell),
	}
}

// crdColumn returns a Table column computed by value.
func crdColumn(name, typ, description string, priority int32, value func(map[string]any) any) resource.Column {
	return resource.Column{
		TableColumnDefinition: metav1.TableColumnDefinition{Name: name, Type: typ, Description: description, Priority: priority},
		Value:                 value,
	}
}

// stringCell is the string at path, "" when absent.
func stringCell(path string) func(map[string]any) any {
	return func(obj map[string]any) any { return lookupString(obj, path) }
}

// versionsCell lists the served versions, the storage one marked
// "(storage)", sorted and comma-separated.
func versionsCell(obj map[string]any) any {
	var out []string
	for _, v := range lookupMaps(obj, "spec.versions") {
		if served, _ := v["served"].(bool); !served {
			continue
		}
		label, _ := v["name"].(string)
		if storage, _ := v["storage"].(bool); storage {
			label += "(storage)"
		}
		out = append(out, label)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// createdAtCell is the creation time in UTC RFC 3339, the zero time's when
// unset, as kube formats it.
func createdAtCell(obj map[string]any) any {
	t, err := time.Parse(time.RFC3339, lookupString(obj, "metadata.creationTimestamp"))
	if err != nil {
		t = time.Time{}
	}
	return t.UTC().Format(time.RFC3339)
}

// shortNamesCell joins spec.names.shortNames with commas.
func shortNamesCell(obj map[string]any) any {
	list, _ := resource.Lookup(obj, "spec.names.shortNames")
	items, _ := list.([]any)
	out := make([]string, 0, len(items))
	for _, s := range items {
		str, _ := s.(string)
		out = append(out, str)
	}
	return strings.Join(out, ",")
}

// establishedCell reports whether the Established condition is True.
func establishedCell(obj map[string]any) any {
	for _, c := range lookupMaps(obj, "status.conditions") {
		if c["type"] == string(apiextensionsv1.Established) && c["status"] == string(apiextensionsv1.ConditionTrue) {
			return true
		}
	}
	return false
}

// lookupString returns the string at path, "" when absent or not a string.
func lookupString(obj map[string]any, path string) string {
	v, _ := resource.Lookup(obj, path)
	s, _ := v.(string)
	return s
}

// lookupMaps returns the objects of the list at path, skipping other values.
func lookupMaps(obj map[string]any, path string) []map[string]any {
	v, _ := resource.Lookup(obj, path)
	items, _ := v.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, item := range items {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
