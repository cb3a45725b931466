package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
)

// handler serves the verbs of one resource.
type handler struct {
	server *Server
	res    *resource.Resource
	// sub is the subresource served, nil for the resource itself.
	sub *resource.Subresource
}

func (h *handler) store() Storage { return h.server.store }

func pathVars(r *http.Request) (ns, name string) {
	v := mux.Vars(r)
	return v["namespace"], v["name"]
}

func (h *handler) get(w http.ResponseWriter, r *http.Request) {
	ns, name := pathVars(r)
	out, err := negotiate(r, h.res)
	if err != nil {
		writeStatus(w, err)
		return
	}
	q, err := parseQuery(r, h.res)
	if err != nil {
		writeStatus(w, err)
		return
	}
	obj, err := h.store().Get(r.Context(), h.res.Key(ns, name), q.getOptions())
	if err != nil {
		writeStatus(w, storeError(err, h.res, name))
		return
	}
	h.writeObject(w, out, http.StatusOK, obj.Data)
}

func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	ns, _ := pathVars(r)
	q, err := parseQuery(r, h.res)
	if err != nil {
		writeStatus(w, err)
		return
	}
	out, err := negotiate(r, h.res)
	if err != nil {
		writeStatus(w, err)
		return
	}
	if q.watch {
		h.watch(w, r, q, ns, out)
		return
	}
	res, err := h.listAt(r, q, ns)
	if err != nil {
		writeStatus(w, err)
		return
	}
	h.writeList(w, out, res)
}

// listAt runs a list query against the store.
func (h *handler) listAt(r *http.Request, q *query, ns string) (*raftstore.ListResult, error) {
	ro, err := q.listOptions()
	if err != nil {
		return nil, err
	}
	res, err := h.store().List(r.Context(), h.res.Prefix(ns), raftstore.ListOptions{
		ReadOptions: ro, Limit: q.limit, Continue: q.cont, Predicate: q.predicate(h.res),
	})
	if err != nil {
		return nil, storeError(err, h.res, "")
	}
	return res, nil
}
