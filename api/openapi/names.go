package openapi

import (
	"reflect"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/util"
)

// definitionName is the name of the schema of Go type t, kube-apiserver's:
// the package path with its domain reversed, then the type name
// (k8s.io/api/core/v1.ConfigMap → io.k8s.api.core.v1.ConfigMap).
func definitionName(t reflect.Type) string {
	return util.ToRESTFriendlyName(util.GetCanonicalTypeName(reflect.New(t).Interface()))
}

// untypedName is the name of the schema of a kind without a Go type, named
// as kube-apiserver names custom resources (stable.example.com/v1 CronTab →
// com.example.stable.v1.CronTab).
func untypedName(gvk schema.GroupVersionKind) string {
	group := gvk.Group
	if group == "" {
		group = "core"
	}
	return util.ToRESTFriendlyName(group + "/" + gvk.Version + "." + gvk.Kind)
}

// operationID is a kube-apiserver operation ID: the verb, the group and
// version, then the rest ("read" + core/v1 + "NamespacedConfigMap" →
// "readCoreV1NamespacedConfigMap").
func operationID(verb string, gv schema.GroupVersion, rest string) string {
	return verb + identifier(groupWord(gv.Group), true) + identifier(gv.Version, true) + rest
}

// tag is the operation tag of a group/version ("core_v1",
// "coordination_v1", "rbacAuthorization_v1").
func tag(gv schema.GroupVersion) string {
	return identifier(groupWord(gv.Group), false) + "_" + identifier(gv.Version, false)
}

// groupWord is the group as operation IDs spell it: "core" for the core
// group, without the ".k8s.io" suffix of the built-in groups.
func groupWord(group string) string {
	if group == "" {
		return "core"
	}
	return strings.TrimSuffix(group, ".k8s.io")
}

// identifier drops what is not a letter (or a digit, after the first
// character) and capitalises the letter after each dropped run, and the
// first letter when capitalize is set ("rbac.authorization" →
// "RbacAuthorization").
func identifier(s string, capitalize bool) string {
	var b strings.Builder
	upper := capitalize
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
