package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// res is a resource request for verb on group/resource (resource may be
// "res/sub"), with an optional name.
func res(verb, group, resource, name string) authorizer.AttributesRecord {
	a := authorizer.AttributesRecord{Verb: verb, APIGroup: group, Resource: resource, Name: name, ResourceRequest: true, Namespace: "ns"}
	for i := range resource {
		if resource[i] == '/' {
			a.Resource, a.Subresource = resource[:i], resource[i+1:]
			break
		}
	}
	return a
}

// url is a non-resource request.
func url(verb, path string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{Verb: verb, Path: path}
}

func TestRuleAllows(t *testing.T) {
	rule := func(verbs, groups, resources, names []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
	}
	s := func(v ...string) []string { return v }
	tests := []struct {
		name  string
		rule  rbacv1.PolicyRule
		attrs authorizer.AttributesRecord
		want  bool
	}{
		{"exact", rule(s("get"), s(""), s("pods"), nil), res("get", "", "pods", "p"), true},
		{"other verb", rule(s("get"), s(""), s("pods"), nil), res("list", "", "pods", ""), false},
		{"verb *", rule(s("*"), s(""), s("pods"), nil), res("deletecollection", "", "pods", ""), true},
		{"custom verb", rule(s("escalate"), s("rbac.authorization.k8s.io"), s("roles"), nil), res("escalate", "rbac.authorization.k8s.io", "roles", "r"), true},
		{"other group", rule(s("get"), s("apps"), s("pods"), nil), res("get", "", "pods", ""), false},
		{"group *", rule(s("get"), s("*"), s("pods"), nil), res("get", "batch", "pods", ""), true},
		{"core group is not *", rule(s("get"), s(""), s("jobs"), nil), res("get", "batch", "jobs", ""), false},
		{"other resource", rule(s("get"), s(""), s("pods"), nil), res("get", "", "secrets", ""), false},
		{"resource *", rule(s("get"), s(""), s("*"), nil), res("get", "", "secrets", ""), true},
		{"resource * covers subresources", rule(s("get"), s(""), s("*"), nil), res("get", "", "pods/log", ""), true},
		{"resource does not cover its subresources", rule(s("get"), s(""), s("pods"), nil), res("get", "", "pods/log", ""), false},
		{"res/sub", rule(s("get"), s(""), s("pods/log"), nil), res("get", "", "pods/log", ""), true},
		{"res/sub is not the resource", rule(s("get"), s(""), s("pods/log"), nil), res("get", "", "pods", ""), false},
		{"res/sub of another resource", rule(s("get"), s(""), s("nodes/log"), nil), res("get", "", "pods/log", ""), false},
		{"*/sub", rule(s("update"), s(""), s("*/status"), nil), res("update", "", "services/status", ""), true},
		{"*/sub of another subresource", rule(s("update"), s(""), s("*/status"), nil), res("update", "", "services/scale", ""), false},
		{"*/sub is not the resource", rule(s("update"), s(""), s("*/status"), nil), res("update", "", "services", ""), false},
		{"res/* is no pattern", rule(s("get"), s(""), s("pods/*"), nil), res("get", "", "pods/log", ""), false},
		{"res/* names the subresource *", rule(s("get"), s(""), s("pods/*"), nil), res("get", "", "pods/*", ""), true},
		{"resourceNames", rule(s("get"), s(""), s("configmaps"), s("a", "b")), res("get", "", "configmaps", "b"), true},
		{"resourceNames other name", rule(s("get"), s(""), s("configmaps"), s("a")), res("get", "", "configmaps", "c"), false},
		{"resourceNames and list", rule(s("list"), s(""), s("configmaps"), s("a")), res("list", "", "configmaps", ""), false},
		{"resourceNames and create", rule(s("create"), s(""), s("configmaps"), s("a")), res("create", "", "configmaps", ""), false},
		{"resourceNames and a list of one name", rule(s("list"), s(""), s("configmaps"), s("a")), res("list", "", "configmaps", "a"), true},
		{"resource rule and a URL", rule(s("get"), s("*"), s("*"), nil), url("get", "/healthz"), false},
		{"URL exact", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/healthz")}, url("get", "/healthz"), true},
		{"URL exact only", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/healthz")}, url("get", "/healthz/etcd"), false},
		{"URL prefix", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/healthz/*")}, url("get", "/healthz/etcd"), true},
		{"URL prefix and its root", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/healthz/*")}, url("get", "/healthz/"), true},
		{"URL prefix without slash", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/api*")}, url("get", "/apis/x"), true},
		{"URL prefix elsewhere", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/healthz/*")}, url("get", "/livez"), false},
		{"URL *", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("*")}, url("get", "/anything"), true},
		{"URL verb", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("*")}, url("post", "/anything"), false},
		{"URL rule and a resource", rbacv1.PolicyRule{Verbs: s("*"), NonResourceURLs: s("*")}, res("get", "", "pods", ""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := queryOf(tt.attrs)
			if got := q.allows(&tt.rule); got != tt.want {
				t.Errorf("allows = %v, want %v", got, tt.want)
			}
		})
	}
}
