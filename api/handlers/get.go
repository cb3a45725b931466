package handlers

import (
	"net/http"

	"github.com/raftapi/raftapi/api/handlers/negotiation"
	"github.com/raftapi/raftapi/api/registry"
)

// Get serves GET of one object.
func Get(s *Scope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, name := pathVars(r)
		out, q, ok := s.readQuery(w, r)
		if !ok {
			return
		}
		obj, err := s.Store.Get(r.Context(), ns, name, registry.GetOptions{ResourceVersion: q.list.ResourceVersion})
		if err != nil {
			WriteStatus(w, err)
			return
		}
		s.encoder().writeObject(w, out, http.StatusOK, obj.Data)
	}
}

// List serves GET of a collection: a list, or a watch with watch=true.
func List(s *Scope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, _ := pathVars(r)
		q, err := parseQuery(r, s.Resource)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		out, err := negotiation.Negotiate(r, s.Resource)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		if q.watch {
			s.watch(w, r, q, ns, out)
			return
		}
		res, err := s.Store.List(r.Context(), ns, q.list)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		s.encoder().writeList(w, out, res)
	}
}

// readQuery reads the response representation and then the query
// parameters of a get or deletecollection; ok is false once an error has
// been written.
func (s *Scope) readQuery(w http.ResponseWriter, r *http.Request) (negotiation.Output, *query, bool) {
	out, err := negotiation.Negotiate(r, s.Resource)
	if err != nil {
		WriteStatus(w, err)
		return out, nil, false
	}
	q, err := parseQuery(r, s.Resource)
	if err != nil {
		WriteStatus(w, err)
		return out, nil, false
	}
	return out, q, true
}
