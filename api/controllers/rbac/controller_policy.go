package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ControllerRolePrefix starts the names of the roles of the server's own
// controllers, as kube's system:controller:* roles.
const ControllerRolePrefix = "system:controller:"

// eventsRule lets a controller record events, in both events APIs.
func eventsRule() rbacv1.PolicyRule {
	return rule(verbs("create", "update", "patch"), groups(legacyGroup, eventsGroup), "events")
}

// controllerRoles are the roles of the controllers this server runs, with
// kube's names and rules. The controllers run in process and are not
// authorized over HTTP: the roles say what each one does, and grant it
// should it ever run out of process with its kube identity.
func controllerRoles() []rbacv1.ClusterRole {
	return []rbacv1.ClusterRole{
		role(ControllerRolePrefix+"clusterrole-aggregation-controller", nil,
			rule(verbs("escalate", "get", "list", "watch", "update", "patch"), groups(rbacGroup), "clusterroles"),
		),
		role(ControllerRolePrefix+"generic-garbage-collector", nil,
			rule(verbs("get", "list", "watch", "patch", "update", "delete"), groups("*"), "*"),
		),
		role(ControllerRolePrefix+"namespace-controller", nil,
			rule(verbs("get", "list", "watch", "delete"), groups(legacyGroup), "namespaces"),
			rule(verbs("update"), groups(legacyGroup), "namespaces/finalize", "namespaces/status"),
			rule(verbs("get", "list", "delete", "deletecollection"), groups("*"), "*"),
		),
		role(ControllerRolePrefix+"root-ca-cert-publisher", nil,
			rule(verbs("create", "update"), groups(legacyGroup), "configmaps"),
			eventsRule(),
		),
		role(ControllerRolePrefix+"service-account-controller", nil,
			rule(verbs("create"), groups(legacyGroup), "serviceaccounts"),
			eventsRule(),
		),
	}
}

// controllerRoleBindings bind each controller role to the service account
// kube-controller-manager gives that controller in kube-system
// (system:serviceaccount:kube-system:NAME).
func controllerRoleBindings() []rbacv1.ClusterRoleBinding {
	var out []rbacv1.ClusterRoleBinding
	for _, r := range controllerRoles() {
		sa := rbacv1.Subject{
			Kind: rbacv1.ServiceAccountKind, Namespace: metav1.NamespaceSystem,
			Name: strings.TrimPrefix(r.Name, ControllerRolePrefix),
		}
		out = append(out, binding(r.Name, sa))
	}
	return out
}
