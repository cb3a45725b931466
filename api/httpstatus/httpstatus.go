// Package httpstatus writes Kubernetes Status errors for the document
// handlers (discovery, OpenAPI), which always answer in JSON.
package httpstatus

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Write writes err as a Kubernetes Status in JSON with its HTTP code.
func Write(w http.ResponseWriter, err *apierrors.StatusError) {
	st := err.Status()
	st.Kind, st.APIVersion = "Status", "v1"
	body, _ := json.Marshal(&st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(body)
}

// NotFound is kube-apiserver's answer to a path it does not serve.
func NotFound() *apierrors.StatusError {
	return apierrors.NewGenericServerResponse(http.StatusNotFound, "get", schema.GroupResource{}, "", "", 0, false)
}

// NotAcceptable answers a request whose Accept header allows nothing served.
func NotAcceptable() *apierrors.StatusError {
	return apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "get", schema.GroupResource{}, "", "", 0, false)
}

// Router returns a router holding the routes register adds, answering
// every other path with a 404 Status.
func Router(register func(*mux.Router)) *mux.Router {
	r := mux.NewRouter()
	register(r)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		Write(w, NotFound())
	})
	return r
}
