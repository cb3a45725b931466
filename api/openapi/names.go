package openapi

import (
	"reflect"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/util"
)

// definitionName is the name of the schema of Go type t, kube-apiserver's:
// the model name t declares (the k8s.io types generate theirs), else the
// package path with its domain reversed, then the type name
// (github.com/raftapi/raftapi/api/openapi.sample →
// com.github.raftapi.raftapi.api.openapi.sample). Both give
// io.k8s.api.core.v1.ConfigMap for k8s.io/api/core/v1.ConfigMap.
func definitionName(t reflect.Type) string {
	if name, ok := declaredModelName(t); ok {
		return name
	}
	return util.ToRESTFriendlyName(t.PkgPath() + "." + t.Name())
}

// declaredModelName returns the name that struct type t gives its schema
// with an OpenAPIModelName method, which kube-apiserver uses verbatim: it
// is already REST-friendly, not a Go path. A method promoted from an
// embedded field (metav1.TypeMeta's, say) names that field's type, not t,
// so it is ignored.
func declaredModelName(t reflect.Type) (string, bool) {
	name, ok := modelName(t)
	if !ok {
		return "", false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.Anonymous {
			continue
		}
		if embedded, ok := modelName(deref(f.Type)); ok && embedded == name {
			return "", false
		}
	}
	return name, true
}

// modelName returns what OpenAPIModelName returns for a value of type t,
// declared or promoted, if t has the method.
func modelName(t reflect.Type) (string, bool) {
	namer, ok := reflect.New(t).Interface().(util.OpenAPIModelNamer)
	if !ok {
		return "", false
	}
	return namer.OpenAPIModelName(), true
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
