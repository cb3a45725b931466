package rbac

import (
	"fmt"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// describeRules is kube's list of the permissions an escalation misses:
// the rules compacted, each as a compact string, sorted, without
// duplicates, one per line.
func describeRules(rules []rbacv1.PolicyRule) string {
	seen := map[string]bool{}
	var lines []string
	for _, r := range compactRules(rules) {
		if s := compactString(r); !seen[s] {
			seen[s] = true
			lines = append(lines, s)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// compactRules merges the rules that name one API group and one resource
// and nothing but verbs into one rule per group and resource, as kube's
// CompactRules; the other rules stay as they are.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	simple := map[schema.GroupResource]int{}
	for _, r := range rules {
		gr, ok := simpleResourceRule(r)
		if !ok {
			out = append(out, r)
			continue
		}
		if i, ok := simple[gr]; ok {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		simple[gr] = len(out)
		out = append(out, rbacv1.PolicyRule{
			APIGroups: []string{gr.Group}, Resources: []string{gr.Resource},
			Verbs: append([]string{}, r.Verbs...),
		})
	}
	return out
}

// simpleResourceRule reports whether r has verbs, one API group, one
// resource and nothing else, and returns that group and resource.
func simpleResourceRule(r rbacv1.PolicyRule) (schema.GroupResource, bool) {
	if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
		return schema.GroupResource{}, false
	}
	return schema.GroupResource{Group: r.APIGroups[0], Resource: r.Resources[0]}, true
}

// compactString is kube's compact form of a rule in escalation messages:
// `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`, the fields
// that are set, in that order.
func compactString(r rbacv1.PolicyRule) string {
	var parts []string
	add := func(name string, v []string) {
		if len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, v))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}
