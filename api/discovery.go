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
			Groups:   []metav1.APIGroup{},
		})
	}).Methods(http.MethodGet)
	s.router.HandleFunc("/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, &version.Info{Major: "1", Minor: "32", GitVersion: "v1.32.0-raftapi", Platform: "linux/amd64"})
	}).Methods(http.MethodGet)
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
