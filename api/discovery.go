package api

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
)

// discoveryRoutes serves the legacy discovery documents of the registered
// resources: /api, /api/v1, /apis and /version.
func (s *Server) discoveryRoutes() {
	s.router.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, &metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions", APIVersion: "v1"},
			Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{
				ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host,
			}},
		})
	}).Methods(http.MethodGet)
	s.router.HandleFunc("/api/v1", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, resourceList("v1", builtins))
	}).Methods(http.MethodGet)
	s.router.HandleFunc("/apis", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, &metav1.APIGroupList{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups:   s.groups(),
		})
	}).Methods(http.MethodGet)
	if s.opts.Members != nil {
		gv := membersGV.String()
		s.router.HandleFunc("/apis/"+membersGV.Group, func(w http.ResponseWriter, r *http.Request) {
			g := s.groups()[0]
			g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
			writeJSON(w, http.StatusOK, &g)
		}).Methods(http.MethodGet)
		s.router.HandleFunc("/apis/"+gv, func(w http.ResponseWriter, r *http.Request) {
			l := resourceList(gv, []*Resource{membersResource})
			l.APIResources[0].Verbs = metav1.Verbs{"get", "list"}
			writeJSON(w, http.StatusOK, l)
		}).Methods(http.MethodGet)
	}
	s.router.HandleFunc("/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, &version.Info{Major: "1", Minor: "32", GitVersion: "v1.32.0-raftapi", Platform: "linux/amd64"})
	}).Methods(http.MethodGet)
}

// groups lists the served API groups (the core group is not one).
func (s *Server) groups() []metav1.APIGroup {
	if s.opts.Members == nil {
		return []metav1.APIGroup{}
	}
	v := metav1.GroupVersionForDiscovery{GroupVersion: membersGV.String(), Version: membersGV.Version}
	return []metav1.APIGroup{{Name: membersGV.Group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v}}
}

// resourceList is the APIResourceList of one group/version.
func resourceList(gv string, resources []*Resource) *metav1.APIResourceList {
	l := &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gv,
	}
	for _, r := range resources {
		if r.APIVersion() != gv {
			continue
		}
		l.APIResources = append(l.APIResources, metav1.APIResource{
			Name:         r.Plural,
			SingularName: r.Singular,
			Namespaced:   r.Namespaced,
			Kind:         r.Kind,
			ShortNames:   r.ShortNames,
			Verbs:        metav1.Verbs{"create", "delete", "get", "list", "update", "watch"},
		})
	}
	return l
}
