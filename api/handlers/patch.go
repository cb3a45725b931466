package handlers

import (
	"net/http"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
)

// Patch serves PATCH with a JSON patch, a JSON merge patch, a strategic
// merge patch (resources with a Go type) or an apply configuration: 200
// with the stored object, 201 when an apply created it.
func Patch(s *Scope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, name := pathVars(r)
		pt, err := s.patchType(r)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		wr, ok := s.readWriteRequest(w, r, "PatchOptions")
		if !ok {
			return
		}
		res, err := s.Store.Patch(r.Context(), ns, name, pt, wr.body, wr.opts)
		code := http.StatusOK
		if res.Created {
			code = http.StatusCreated
		}
		s.finishWrite(w, wr, code, res, err)
	}
}

// patchType returns the request's patch type: its Content-Type, which
// must be one the resource accepts (415 otherwise).
func (s *Scope) patchType(r *http.Request) (types.PatchType, error) {
	mt, err := negotiation.RequestMediaType(r)
	if err != nil {
		return "", err
	}
	accepted := s.Store.PatchTypes()
	if !slices.Contains(accepted, mt) {
		return "", codec.UnsupportedMediaType(mt, accepted)
	}
	return types.PatchType(mt), nil
}
