package discovery

import (
	"crypto/sha256"
	"encoding/base64"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/resource"
)

// apiVersions is the legacy /api document: the core group's versions and
// the address clients should use, which is the one they used.
func apiVersions(groups []group, host string) *metav1.APIVersions {
	out := &metav1.APIVersions{
		TypeMeta: metav1.TypeMeta{Kind: "APIVersions", APIVersion: "v1"},
		Versions: []string{},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{
			ClientCIDR: "0.0.0.0/0", ServerAddress: host,
		}},
	}
	if core, ok := find(groups, ""); ok {
		for _, gv := range core.versions {
			out.Versions = append(out.Versions, gv.version)
		}
	}
	return out
}

// apiGroupList is the legacy /apis document.
func apiGroupList(groups []group) *metav1.APIGroupList {
	out := &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   []metav1.APIGroup{},
	}
	for _, g := range named(groups) {
		out.Groups = append(out.Groups, apiGroup(g))
	}
	return out
}

// apiGroup describes one named group; it is the /apis/{group} document once
// TypeMeta is set.
func apiGroup(g group) metav1.APIGroup {
	out := metav1.APIGroup{Name: g.name}
	for _, gv := range g.versions {
		out.Versions = append(out.Versions, metav1.GroupVersionForDiscovery{
			GroupVersion: gv.String(), Version: gv.version,
		})
	}
	if len(out.Versions) > 0 {
		out.PreferredVersion = out.Versions[0]
	}
	return out
}

// apiResourceList is the legacy document of one group/version.
func apiResourceList(gv groupVersion) *metav1.APIResourceList {
	out := &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gv.String(),
		APIResources: []metav1.APIResource{},
	}
	for _, r := range gv.resources {
		out.APIResources = append(out.APIResources, apiResource(r))
		for i := range r.Subresources {
			out.APIResources = append(out.APIResources, apiSubresource(r, &r.Subresources[i]))
		}
	}
	return out
}

// apiResource describes one resource in a legacy resource list.
func apiResource(r *resource.Resource) metav1.APIResource {
	out := metav1.APIResource{
		Name:               r.Plural,
		SingularName:       r.Singular,
		Namespaced:         r.Namespaced,
		Kind:               r.Kind,
		Verbs:              r.ServedVerbs(),
		ShortNames:         r.ShortNames,
		Categories:         r.Categories,
		StorageVersionHash: storageVersionHash(r),
	}
	if r.Review != nil {
		out.StorageVersionHash = "" // a review is never stored
	}
	return out
}

// apiSubresource describes one subresource in a legacy resource list, as
// "plural/sub" with the kind it responds with; a kind of another group
// (a scale's autoscaling/v1 Scale) is named with its group and version.
func apiSubresource(r *resource.Resource, sub *resource.Subresource) metav1.APIResource {
	kind := subresourceKind(r, sub)
	out := metav1.APIResource{
		Name:       r.Plural + "/" + sub.Name,
		Namespaced: r.Namespaced,
		Kind:       kind.Kind,
		Verbs:      sub.ServedVerbs(),
	}
	if kind.Group != r.Group || kind.Version != r.Version {
		out.Group, out.Version = kind.Group, kind.Version
	}
	return out
}

// storageVersionHash is the opaque storage-version token kube-apiserver
// publishes: the first 8 bytes of the SHA-256 of "group/version/kind",
// base64-encoded, of the version objects are stored in (so events.k8s.io
// events, stored as core/v1 events, share their token).
func storageVersionHash(r *resource.Resource) string {
	gvk := r.StorageGroupVersionKind()
	sum := sha256.Sum256([]byte(gvk.Group + "/" + gvk.Version + "/" + gvk.Kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}
