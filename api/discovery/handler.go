package discovery

import (
	"net/http"

	"github.com/gorilla/mux"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/httpstatus"
	"github.com/raftapi/raftapi/api/resource"
)

// Handler serves the discovery documents of a registry. It is safe for
// concurrent use; every request reads the registry afresh.
type Handler struct {
	reg    *resource.Registry
	router *mux.Router
}

var _ http.Handler = (*Handler)(nil)

// NewHandler returns the discovery handler of reg.
func NewHandler(reg *resource.Registry) *Handler {
	h := &Handler{reg: reg}
	h.router = httpstatus.Router(h.Routes)
	return h
}

// Routes registers the discovery paths on r, each an exact path for GET:
// /api, /api/{version}, /apis, /apis/{group}, /apis/{group}/{version} and
// /version. None of them overlaps a resource path, so the resource routes
// may be registered on the same router before or after.
func (h *Handler) Routes(r *mux.Router) {
	r.HandleFunc("/api", h.serveCore).Methods(http.MethodGet)
	r.HandleFunc("/api/{version}", h.serveCoreVersion).Methods(http.MethodGet)
	r.HandleFunc("/apis", h.serveGroups).Methods(http.MethodGet)
	r.HandleFunc("/apis/{group}", h.serveGroup).Methods(http.MethodGet)
	r.HandleFunc("/apis/{group}/{version}", h.serveGroupVersion).Methods(http.MethodGet)
	r.HandleFunc("/version", h.serveVersion).Methods(http.MethodGet)
	r.HandleFunc("/version/", h.serveVersion).Methods(http.MethodGet)
}

// ServeHTTP serves the discovery paths and a 404 Status for any other.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.router.ServeHTTP(w, r)
}

// serveCore serves /api: APIVersions, or the core group's aggregated
// discovery when the client asks for it.
func (h *Handler) serveCore(w http.ResponseWriter, r *http.Request) {
	f, ok := negotiate(r.Header.Get("Accept"), formatLegacy, formatV2, formatV2Beta1)
	if !ok {
		httpstatus.Write(w, httpstatus.NotAcceptable())
		return
	}
	groups := groupsOf(h.reg)
	if f == formatLegacy {
		writeDocument(w, r, f.contentType(), apiVersions(groups, r.Host))
		return
	}
	var core []group
	if g, ok := find(groups, ""); ok {
		core = append(core, g)
	}
	writeDocument(w, r, f.contentType(), aggregatedList(core, f.apiVersion()))
}

// serveGroups serves /apis: APIGroupList, or the named groups' aggregated
// discovery when the client asks for it.
func (h *Handler) serveGroups(w http.ResponseWriter, r *http.Request) {
	f, ok := negotiate(r.Header.Get("Accept"), formatLegacy, formatV2, formatV2Beta1)
	if !ok {
		httpstatus.Write(w, httpstatus.NotAcceptable())
		return
	}
	groups := groupsOf(h.reg)
	if f == formatLegacy {
		writeDocument(w, r, f.contentType(), apiGroupList(groups))
		return
	}
	writeDocument(w, r, f.contentType(), aggregatedList(named(groups), f.apiVersion()))
}

// serveCoreVersion serves /api/{version}.
func (h *Handler) serveCoreVersion(w http.ResponseWriter, r *http.Request) {
	h.serveResourceList(w, r, "", mux.Vars(r)["version"])
}

// serveGroupVersion serves /apis/{group}/{version}.
func (h *Handler) serveGroupVersion(w http.ResponseWriter, r *http.Request) {
	vars := mux.Vars(r)
	h.serveResourceList(w, r, vars["group"], vars["version"])
}

// serveResourceList serves the APIResourceList of one group/version.
func (h *Handler) serveResourceList(w http.ResponseWriter, r *http.Request, group, version string) {
	if _, ok := negotiate(r.Header.Get("Accept"), formatLegacy); !ok {
		httpstatus.Write(w, httpstatus.NotAcceptable())
		return
	}
	g, ok := find(groupsOf(h.reg), group)
	if !ok {
		httpstatus.Write(w, httpstatus.NotFound())
		return
	}
	gv, ok := g.version(version)
	if !ok {
		httpstatus.Write(w, httpstatus.NotFound())
		return
	}
	writeDocument(w, r, formatLegacy.contentType(), apiResourceList(gv))
}

// serveGroup serves /apis/{group}.
func (h *Handler) serveGroup(w http.ResponseWriter, r *http.Request) {
	if _, ok := negotiate(r.Header.Get("Accept"), formatLegacy); !ok {
		httpstatus.Write(w, httpstatus.NotAcceptable())
		return
	}
	name := mux.Vars(r)["group"]
	g, ok := find(groupsOf(h.reg), name)
	if !ok || name == "" {
		httpstatus.Write(w, httpstatus.NotFound())
		return
	}
	doc := apiGroup(g)
	doc.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	writeDocument(w, r, formatLegacy.contentType(), &doc)
}
