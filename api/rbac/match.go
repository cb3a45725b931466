package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// query is what a rule is matched against: the attributes of one
// authorization request, read once.
type query struct {
	resource bool
	verb     string
	group    string
	res, sub string
	name     string
	path     string
}

// queryOf reads the attributes rules look at.
func queryOf(a authorizer.Attributes) query {
	r := query{resource: a.IsResourceRequest(), verb: a.GetVerb()}
	if r.resource {
		r.group, r.res, r.sub, r.name = a.GetAPIGroup(), a.GetResource(), a.GetSubresource(), a.GetName()
	} else {
		r.path = a.GetPath()
	}
	return r
}

// allows reports whether rule allows the request, as kube's RuleAllows:
// verb, API group, resource (with its subresource) and name for a
// resource request; verb and path otherwise.
func (r *query) allows(rule *rbacv1.PolicyRule) bool {
	if !verbMatches(rule.Verbs, r.verb) {
		return false
	}
	if !r.resource {
		return nonResourceURLMatches(rule.NonResourceURLs, r.path)
	}
	return groupMatches(rule.APIGroups, r.group) &&
		resourceMatches(rule.Resources, r.res, r.sub) &&
		resourceNameMatches(rule.ResourceNames, r.name)
}

// verbMatches: "*" or the verb itself.
func verbMatches(verbs []string, verb string) bool {
	for _, v := range verbs {
		if v == rbacv1.VerbAll || v == verb {
			return true
		}
	}
	return false
}

// groupMatches: "*" or the group itself ("" is the core group).
func groupMatches(groups []string, group string) bool {
	for _, g := range groups {
		if g == rbacv1.APIGroupAll || g == group {
			return true
		}
	}
	return false
}

// resourceMatches: "*", the resource ("pods"), or with a subresource
// "pods/log" or "*/log". Nothing else is a pattern: "pods/*" matches
// only a subresource named "*", as in kube.
func resourceMatches(resources []string, res, sub string) bool {
	for _, rr := range resources {
		if rr == rbacv1.ResourceAll {
			return true
		}
		if sub == "" {
			if rr == res {
				return true
			}
			continue
		}
		if isResourceSlashSub(rr, res, sub) || isResourceSlashSub(rr, "*", sub) {
			return true
		}
	}
	return false
}

// isResourceSlashSub reports whether rule is res + "/" + sub, without
// building that string.
func isResourceSlashSub(rule, res, sub string) bool {
	return len(rule) == len(res)+1+len(sub) &&
		strings.HasPrefix(rule, res) && rule[len(res)] == '/' && strings.HasSuffix(rule, sub)
}

// resourceNameMatches: any name when the rule lists none, else one of
// them. A request without a name (create, list, watch of a collection)
// never matches a rule that lists names.
func resourceNameMatches(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// nonResourceURLMatches: "*", the path itself, or a prefix ending in "*"
// ("/apis/*" matches "/apis" and everything under it).
func nonResourceURLMatches(urls []string, path string) bool {
	for _, u := range urls {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}
