package rbac

import (
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/component-helpers/auth/rbac/validation"
)

// roleNamed returns the bootstrap ClusterRole called name.
func roleNamed(t *testing.T, name string) rbacv1.ClusterRole {
	t.Helper()
	for _, r := range ClusterRoles() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no bootstrap clusterrole %s", name)
	return rbacv1.ClusterRole{}
}

// allows reports whether rules grant verb on group/resource, or on the
// non-resource URL when resource starts with "/".
func allows(rules []rbacv1.PolicyRule, verb, group, resource string) bool {
	want := rbacv1.PolicyRule{Verbs: []string{verb}, APIGroups: []string{group}, Resources: []string{resource}}
	if resource[0] == '/' {
		want = rbacv1.PolicyRule{Verbs: []string{verb}, NonResourceURLs: []string{resource}}
	}
	ok, _ := validation.Covers(rules, []rbacv1.PolicyRule{want})
	return ok
}

func TestPolicyNamesLabelsAndAnnotations(t *testing.T) {
	var names []string
	for _, r := range ClusterRoles() {
		names = append(names, r.Name)
		if r.Labels[BootstrappingLabel] != BootstrappingValue || r.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
			t.Errorf("clusterrole %s: labels %v annotations %v", r.Name, r.Labels, r.Annotations)
		}
	}
	for _, want := range []string{
		"cluster-admin", "admin", "edit", "view",
		"system:aggregate-to-admin", "system:aggregate-to-edit", "system:aggregate-to-view",
		"system:basic-user", "system:discovery", "system:public-info-viewer", "system:monitoring",
		"system:auth-delegator", "system:service-account-issuer-discovery",
		"system:controller:namespace-controller", "system:controller:generic-garbage-collector",
		"system:controller:clusterrole-aggregation-controller", "system:controller:service-account-controller",
		"system:controller:root-ca-cert-publisher",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("no bootstrap clusterrole %s", want)
		}
	}
	for _, b := range ClusterRoleBindings() {
		if b.Labels[BootstrappingLabel] != BootstrappingValue || b.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
			t.Errorf("clusterrolebinding %s: labels %v annotations %v", b.Name, b.Labels, b.Annotations)
		}
		if !slices.Contains(names, b.RoleRef.Name) || b.RoleRef.Kind != "ClusterRole" || b.RoleRef.APIGroup != rbacv1.GroupName {
			t.Errorf("clusterrolebinding %s binds %+v, not a bootstrap clusterrole", b.Name, b.RoleRef)
		}
	}
}

// TestPolicyRulesAreWellFormed: each rule is what kube's rule builder
// accepts, verbs and resources sorted.
func TestPolicyRulesAreWellFormed(t *testing.T) {
	for _, r := range ClusterRoles() {
		for _, rule := range r.Rules {
			bad := len(rule.Verbs) == 0 ||
				(len(rule.NonResourceURLs) > 0) == (len(rule.Resources) > 0) ||
				(len(rule.Resources) > 0 && len(rule.APIGroups) == 0) ||
				!slices.IsSorted(rule.Verbs) || !slices.IsSorted(rule.Resources) || !slices.IsSorted(rule.NonResourceURLs)
			if bad {
				t.Errorf("clusterrole %s: malformed rule %+v", r.Name, rule)
			}
		}
	}
}

func TestPolicyRoleRules(t *testing.T) {
	for _, tc := range []struct {
		role, verb, group, resource string
		want                        bool
	}{
		{"cluster-admin", "delete", "anything.example.com", "widgets", true},
		{"cluster-admin", "get", "", "/any/path", true},
		{"system:basic-user", "create", "authorization.k8s.io", "selfsubjectaccessreviews", true},
		{"system:basic-user", "create", "authorization.k8s.io", "selfsubjectrulesreviews", true},
		{"system:basic-user", "create", "authentication.k8s.io", "selfsubjectreviews", true},
		{"system:basic-user", "create", "authorization.k8s.io", "subjectaccessreviews", false},
		{"system:discovery", "get", "", "/apis/apps/v1", true},
		{"system:discovery", "get", "", "/openapi/v3", true},
		{"system:discovery", "get", "", "/metrics", false},
		{"system:public-info-viewer", "get", "", "/version/", true},
		{"system:public-info-viewer", "get", "", "/readyz", true},
		{"system:public-info-viewer", "get", "", "/api", false},
		{"system:monitoring", "get", "", "/metrics", true},
		{"system:monitoring", "get", "", "/readyz/raft-leader", true},
		{"system:service-account-issuer-discovery", "get", "", "/openid/v1/jwks/", true},
		{"system:service-account-issuer-discovery", "get", "", "/.well-known/openid-configuration", true},
		{"system:auth-delegator", "create", "authentication.k8s.io", "tokenreviews", true},
		{"system:auth-delegator", "create", "authorization.k8s.io", "subjectaccessreviews", true},
		{"system:aggregate-to-view", "list", "", "configmaps", true},
		{"system:aggregate-to-view", "get", "", "namespaces", true},
		{"system:aggregate-to-view", "watch", "", "events", true},
		{"system:aggregate-to-view", "get", "", "secrets", false},
		{"system:aggregate-to-view", "get", "coordination.k8s.io", "leases", false},
		{"system:aggregate-to-edit", "get", "", "secrets", true},
		{"system:aggregate-to-edit", "deletecollection", "", "configmaps", true},
		{"system:aggregate-to-edit", "create", "", "serviceaccounts/token", true},
		{"system:aggregate-to-edit", "impersonate", "", "serviceaccounts", true},
		{"system:aggregate-to-edit", "create", "rbac.authorization.k8s.io", "roles", false},
		{"system:aggregate-to-admin", "create", "rbac.authorization.k8s.io", "rolebindings", true},
		{"system:aggregate-to-admin", "create", "authorization.k8s.io", "localsubjectaccessreviews", true},
		{"system:aggregate-to-admin", "create", "rbac.authorization.k8s.io", "clusterroles", false},
		{"system:controller:clusterrole-aggregation-controller", "escalate", "rbac.authorization.k8s.io", "clusterroles", true},
		{"system:controller:namespace-controller", "update", "", "namespaces/finalize", true},
		{"system:controller:generic-garbage-collector", "delete", "apps", "replicasets", true},
	} {
		if got := allows(roleNamed(t, tc.role).Rules, tc.verb, tc.group, tc.resource); got != tc.want {
			t.Errorf("%s allows %s %s/%s = %v, want %v", tc.role, tc.verb, tc.group, tc.resource, got, tc.want)
		}
	}
}

func TestPolicyAggregation(t *testing.T) {
	for _, tc := range []struct{ role, selects, label string }{
		{"admin", AggregateToAdmin, ""},
		{"edit", AggregateToEdit, AggregateToAdmin},
		{"view", AggregateToView, AggregateToEdit},
	} {
		r := roleNamed(t, tc.role)
		if r.AggregationRule == nil || len(r.AggregationRule.ClusterRoleSelectors) != 1 ||
			r.AggregationRule.ClusterRoleSelectors[0].MatchLabels[tc.selects] != "true" || len(r.Rules) != 0 {
			t.Errorf("%s: aggregationRule %+v, rules %v", tc.role, r.AggregationRule, r.Rules)
		}
		if tc.label != "" && r.Labels[tc.label] != "true" {
			t.Errorf("%s: labels %v, want %s", tc.role, r.Labels, tc.label)
		}
	}
}

func TestPolicyBindings(t *testing.T) {
	want := map[string][]rbacv1.Subject{
		"cluster-admin":                               {{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "system:masters"}},
		"system:basic-user":                           {{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "system:authenticated"}},
		"system:discovery":                            {{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "system:authenticated"}},
		"system:monitoring":                           {{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "system:monitoring"}},
		"system:public-info-viewer":                   {{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "system:authenticated"}, {Kind: "Group", APIGroup: rbacv1.GroupName, Name: "system:unauthenticated"}},
		"system:service-account-issuer-discovery":     {{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "system:serviceaccounts"}},
		"system:controller:namespace-controller":      {{Kind: "ServiceAccount", Namespace: "kube-system", Name: "namespace-controller"}},
		"system:controller:generic-garbage-collector": {{Kind: "ServiceAccount", Namespace: "kube-system", Name: "generic-garbage-collector"}},
	}
	got := map[string][]rbacv1.Subject{}
	for _, b := range ClusterRoleBindings() {
		got[b.Name] = b.Subjects
		if b.RoleRef.Name != b.Name {
			t.Errorf("clusterrolebinding %s binds clusterrole %s", b.Name, b.RoleRef.Name)
		}
	}
	for name, subjects := range want {
		if !slices.Equal(got[name], subjects) {
			t.Errorf("clusterrolebinding %s: subjects %+v, want %+v", name, got[name], subjects)
		}
	}
}
