package handlers

import (
	"net/http"

	"github.com/raftapi/raftapi/api/registry"
)

// Create serves POST on a collection: 201 with the stored object.
func Create(s *Scope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, _ := pathVars(r)
		wr, ok := s.readWriteRequest(w, r, "CreateOptions")
		if !ok {
			return
		}
		obj, err := s.decodeBody(r, &wr)
		var res registry.Result
		if err == nil {
			res, err = s.Store.Create(r.Context(), ns, obj, wr.opts)
		}
		s.finishWrite(w, wr, http.StatusCreated, res, err)
	}
}

// Update serves PUT of one object: 200 with the stored object.
func Update(s *Scope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, name := pathVars(r)
		wr, ok := s.readWriteRequest(w, r, "UpdateOptions")
		if !ok {
			return
		}
		obj, err := s.decodeBody(r, &wr)
		var res registry.Result
		if err == nil {
			res, err = s.Store.Update(r.Context(), ns, name, obj, wr.opts)
		}
		s.finishWrite(w, wr, http.StatusOK, res, err)
	}
}
