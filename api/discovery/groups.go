package discovery

import (
	"sort"

	"k8s.io/apimachinery/pkg/version"

	"github.com/raftapi/raftapi/api/resource"
)

// group is one served API group: its versions, the preferred first.
type group struct {
	name     string
	versions []groupVersion
}

// groupVersion is one served version of a group and its resources.
type groupVersion struct {
	group     string
	version   string
	resources []*resource.Resource
}

// String returns the group/version as an apiVersion ("v1",
// "coordination.k8s.io/v1").
func (gv groupVersion) String() string {
	if gv.group == "" {
		return gv.version
	}
	return gv.group + "/" + gv.version
}

// groupsOf groups the registry's resources: the core group ("") first when
// served, then the named groups sorted by name. Versions are in
// Kubernetes priority order (v2, v1, v1beta1, v1alpha1), so the preferred
// version of a group is its first.
func groupsOf(reg *resource.Registry) []group {
	byGroup := map[string]map[string][]*resource.Resource{}
	var names []string
	for _, r := range reg.All() {
		versions, ok := byGroup[r.Group]
		if !ok {
			versions = map[string][]*resource.Resource{}
			byGroup[r.Group] = versions
			names = append(names, r.Group)
		}
		versions[r.Version] = append(versions[r.Version], r)
	}
	sort.Strings(names)
	out := make([]group, 0, len(names))
	for _, name := range names {
		out = append(out, newGroup(name, byGroup[name]))
	}
	return out
}

// newGroup orders the versions of one group by priority.
func newGroup(name string, versions map[string][]*resource.Resource) group {
	g := group{name: name}
	for v, rs := range versions {
		g.versions = append(g.versions, groupVersion{group: name, version: v, resources: rs})
	}
	sort.Slice(g.versions, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(g.versions[i].version, g.versions[j].version) > 0
	})
	return g
}

// find returns the group named name.
func find(groups []group, name string) (group, bool) {
	for _, g := range groups {
		if g.name == name {
			return g, true
		}
	}
	return group{}, false
}

// version returns the group's version v.
func (g group) version(v string) (groupVersion, bool) {
	for _, gv := range g.versions {
		if gv.version == v {
			return gv, true
		}
	}
	return groupVersion{}, false
}

// named returns the groups other than the core group.
func named(groups []group) []group {
	out := make([]group, 0, len(groups))
	for _, g := range groups {
		if g.name != "" {
			out = append(out, g)
		}
	}
	return out
}
