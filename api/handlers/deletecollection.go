package handlers

import (
	"net/http"

	"github.com/raftapi/raftapi/api/handlers/negotiation"
)

// DeleteCollection serves DELETE on a collection: every object matching
// the selectors is deleted as a single delete would, and the list of the
// objects deleted (or marked for deletion) is returned.
func DeleteCollection(s *Scope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, _ := pathVars(r)
		out, err := negotiation.Negotiate(r, s.Resource)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		q, err := parseQuery(r, s.Resource)
		if err != nil {
			WriteStatus(w, err)
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
		s.writeList(w, out, res)
	}
}
