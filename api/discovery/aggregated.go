package discovery

import (
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/resource"
)

// aggregatedList is the aggregated discovery document of groups, in
// apidiscovery.k8s.io/v2. The v2beta1 document has the same shape; apiVersion
// selects which one it is.
func aggregatedList(groups []group, apiVersion string) *apidiscoveryv2.APIGroupDiscoveryList {
	out := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: apiVersion},
		Items:    []apidiscoveryv2.APIGroupDiscovery{},
	}
	for _, g := range groups {
		out.Items = append(out.Items, aggregatedGroup(g))
	}
	return out
}

// aggregatedGroup describes one group, its preferred version first.
func aggregatedGroup(g group) apidiscoveryv2.APIGroupDiscovery {
	out := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.name}}
	for _, gv := range g.versions {
		v := apidiscoveryv2.APIVersionDiscovery{
			Version:   gv.version,
			Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
		}
		for _, r := range gv.resources {
			v.Resources = append(v.Resources, aggregatedResource(r))
		}
		out.Versions = append(out.Versions, v)
	}
	return out
}

// aggregatedResource describes one resource.
func aggregatedResource(r *resource.Resource) apidiscoveryv2.APIResourceDiscovery {
	scope := apidiscoveryv2.ScopeCluster
	if r.Namespaced {
		scope = apidiscoveryv2.ScopeNamespace
	}
	return apidiscoveryv2.APIResourceDiscovery{
		Resource:         r.Plural,
		ResponseKind:     &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
		Scope:            scope,
		SingularResource: r.Singular,
		Verbs:            r.ServedVerbs(),
		ShortNames:       r.ShortNames,
		Categories:       r.Categories,
		Subresources:     subresourceDiscovery(r),
	}
}

// subresourceDiscovery lists r's subresources with the kind each
// responds with.
func subresourceDiscovery(r *resource.Resource) []apidiscoveryv2.APISubresourceDiscovery {
	var out []apidiscoveryv2.APISubresourceDiscovery
	for i := range r.Subresources {
		sub := &r.Subresources[i]
		kind := subresourceKind(r, sub)
		out = append(out, apidiscoveryv2.APISubresourceDiscovery{
			Subresource:  sub.Name,
			ResponseKind: &kind,
			Verbs:        sub.ServedVerbs(),
		})
	}
	return out
}

// subresourceKind is the kind sub responds with: r's own, or
// autoscaling/v1 Scale for a scale subresource.
func subresourceKind(r *resource.Resource, sub *resource.Subresource) metav1.GroupVersionKind {
	if sub.Scale != nil {
		s := resource.ScaleResource(r)
		return metav1.GroupVersionKind{Group: s.Group, Version: s.Version, Kind: s.Kind}
	}
	if b := sub.Body; b != nil { // a token subresource answers with its TokenRequest
		return metav1.GroupVersionKind{Group: b.Group, Version: b.Version, Kind: b.Kind}
	}
	return metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}
