package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
)

// BootstrappingLabel and its value mark every object of the bootstrap
// policy, as kube-apiserver marks its own.
const (
	BootstrappingLabel = "kubernetes.io/bootstrapping"
	BootstrappingValue = "rbac-defaults"
)

// The labels that aggregate a ClusterRole's rules into admin, edit and
// view.
const (
	AggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	AggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	AggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// ClusterRoles returns the ClusterRoles of the bootstrap policy, the
// system:controller:* roles included; every call builds new values.
func ClusterRoles() []rbacv1.ClusterRole {
	roles := append(clusterRoles(), controllerRoles()...)
	for i := range roles {
		setDefaultMetadata(&roles[i].ObjectMeta)
	}
	return roles
}

// ClusterRoleBindings returns the ClusterRoleBindings of the bootstrap
// policy, the system:controller:* bindings included; every call builds
// new values.
func ClusterRoleBindings() []rbacv1.ClusterRoleBinding {
	bindings := append(clusterRoleBindings(), controllerRoleBindings()...)
	for i := range bindings {
		setDefaultMetadata(&bindings[i].ObjectMeta)
	}
	return bindings
}

// setDefaultMetadata adds the bootstrapping label and the autoupdate
// annotation.
func setDefaultMetadata(m *metav1.ObjectMeta) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[BootstrappingLabel] = BootstrappingValue
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[rbacv1.AutoUpdateAnnotationKey] = "true"
}

// clusterRoles are kube-apiserver's default roles, their rules restricted
// to the resources this server serves.
func clusterRoles() []rbacv1.ClusterRole {
	return []rbacv1.ClusterRole{
		role("cluster-admin", nil,
			rule(verbs("*"), groups("*"), "*"),
			urlRule(verbs("*"), "*"),
		),
		role("system:discovery", nil, urlRule(verbs("get"),
			"/livez", "/readyz", "/healthz", "/version", "/version/",
			"/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*")),
		role("system:monitoring", nil, urlRule(verbs("get"),
			"/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz",
			"/livez/*", "/readyz/*", "/healthz/*")),
		role("system:basic-user", nil,
			rule(verbs("create"), groups(authorizationGroup), "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			rule(verbs("create"), groups(authenticationGroup), "selfsubjectreviews"),
		),
		role("system:public-info-viewer", nil, urlRule(verbs("get"),
			"/livez", "/readyz", "/healthz", "/version", "/version/")),
		aggregated("admin", nil, AggregateToAdmin),
		aggregated("edit", map[string]string{AggregateToAdmin: "true"}, AggregateToEdit),
		aggregated("view", map[string]string{AggregateToEdit: "true"}, AggregateToView),
		role("system:aggregate-to-admin", map[string]string{AggregateToAdmin: "true"},
			rule(verbs("create"), groups(authorizationGroup), "localsubjectaccessreviews"),
			rule(readWrite, groups(rbacGroup), "roles", "rolebindings"),
		),
		role("system:aggregate-to-edit", map[string]string{AggregateToEdit: "true"},
			rule(read, groups(legacyGroup), "secrets"),
			rule(verbs("impersonate"), groups(legacyGroup), "serviceaccounts"),
			rule(write, groups(legacyGroup), "serviceaccounts", "configmaps", "secrets", "events"),
			rule(verbs("create"), groups(legacyGroup), "serviceaccounts/token"),
		),
		role("system:aggregate-to-view", map[string]string{AggregateToView: "true"},
			rule(read, groups(legacyGroup), "serviceaccounts", "configmaps"),
			rule(read, groups(legacyGroup), "events", "namespaces/status"),
			rule(read, groups(legacyGroup), "namespaces"),
		),
		role("system:auth-delegator", nil,
			rule(verbs("create"), groups(authenticationGroup), "tokenreviews"),
			rule(verbs("create"), groups(authorizationGroup), "subjectaccessreviews"),
		),
		role("system:service-account-issuer-discovery", nil, urlRule(verbs("get"),
			"/.well-known/openid-configuration", "/.well-known/openid-configuration/",
			"/openid/v1/jwks", "/openid/v1/jwks/")),
	}
}

// clusterRoleBindings bind the default roles as kube-apiserver does.
func clusterRoleBindings() []rbacv1.ClusterRoleBinding {
	return []rbacv1.ClusterRoleBinding{
		binding("cluster-admin", groupSubjects(user.SystemPrivilegedGroup)...),
		binding("system:monitoring", groupSubjects(user.MonitoringGroup)...),
		binding("system:discovery", groupSubjects(user.AllAuthenticated)...),
		binding("system:basic-user", groupSubjects(user.AllAuthenticated)...),
		binding("system:public-info-viewer", groupSubjects(user.AllAuthenticated, user.AllUnauthenticated)...),
		binding("system:service-account-issuer-discovery", groupSubjects(serviceaccount.AllServiceAccountsGroup)...),
	}
}

// role is a ClusterRole with labels and rules.
func role(name string, labels map[string]string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
}

// aggregated is a ClusterRole whose rules are those of the ClusterRoles
// labelled selector=true.
func aggregated(name string, labels map[string]string, selector string) rbacv1.ClusterRole {
	r := role(name, labels)
	r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
		{MatchLabels: map[string]string{selector: "true"}},
	}}
	return r
}

// binding is a ClusterRoleBinding of the ClusterRole of the same name.
func binding(name string, subjects ...rbacv1.Subject) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacGroup, Kind: "ClusterRole", Name: name},
		Subjects:   subjects,
	}
}

// groupSubjects are the subjects of the groups names.
func groupSubjects(names ...string) []rbacv1.Subject {
	out := make([]rbacv1.Subject, len(names))
	for i, n := range names {
		out[i] = rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacGroup, Name: n}
	}
	return out
}
