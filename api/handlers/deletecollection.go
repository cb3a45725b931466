package handlers

import (
	"net/http"
)

// DeleteCollection serves DELETE on a collection: every object matching
// the selectors is deleted as a single delete would, and the list of the
// objects deleted (or marked for deletion) is returned.
func DeleteCollection(s *Scope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, _ := pathVars(r)
		out, q, ok := s.readQuery(w, r)
		if !ok {
			return
		}
		opts, err := s.deleteOptions(r)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		res, err := s.Store.DeleteCollection(r.Context(), ns, q.list, opts)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		s.encoder().writeList(w, out, res)
	}
}
