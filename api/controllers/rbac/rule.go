package rbac

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Verb sets of the bootstrap policy.
var (
	read      = []string{"get", "list", "watch"}
	write     = []string{"create", "update", "patch", "delete", "deletecollection"}
	readWrite = append(slices.Clone(read), write...)
)

// API groups the policy names.
const (
	legacyGroup         = ""
	authenticationGroup = "authentication.k8s.io"
	authorizationGroup  = "authorization.k8s.io"
	eventsGroup         = "events.k8s.io"
	rbacGroup           = rbacv1.GroupName
)

// rule is a resource rule: verbs on resources of groups. As kube's rule
// builder does, the verbs and resources are sorted; the groups keep their
// order.
func rule(verbs, groups []string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: sorted(verbs), APIGroups: slices.Clone(groups), Resources: sorted(resources)}
}

// urlRule is a non-resource rule: verbs on the URLs (paths, or prefixes
// ending in "*").
func urlRule(verbs []string, urls ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: sorted(verbs), NonResourceURLs: sorted(urls)}
}

// groups names API groups, for rule.
func groups(gs ...string) []string { return gs }

// verbs names verbs, for rule and urlRule.
func verbs(vs ...string) []string { return vs }

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
