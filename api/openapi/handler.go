package openapi

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/httpstatus"
	"github.com/raftapi/raftapi/api/resource"
)

// Handler serves the OpenAPI documents of a registry. It is safe for
// concurrent use. Documents follow the registry: each request checks its
// content and documents are rebuilt when it changed.
type Handler struct {
	reg    *resource.Registry
	router *mux.Router
	cache  cache
}

var _ http.Handler = (*Handler)(nil)

// NewHandler returns the OpenAPI handler of reg.
func NewHandler(reg *resource.Registry) *Handler {
	h := &Handler{reg: reg}
	h.router = httpstatus.Router(h.Routes)
	return h
}

// Routes registers the OpenAPI paths on r, each an exact path for GET:
// /openapi/v2, /openapi/v3, /openapi/v3/api/{version} and
// /openapi/v3/apis/{group}/{version}.
func (h *Handler) Routes(r *mux.Router) {
	r.HandleFunc("/openapi/v2", h.serveV2).Methods(http.MethodGet)
	r.HandleFunc("/openapi/v3", h.serveV3Index).Methods(http.MethodGet)
	r.HandleFunc("/openapi/v3/api/{version}", h.serveV3).Methods(http.MethodGet)
	r.HandleFunc("/openapi/v3/apis/{group}/{version}", h.serveV3).Methods(http.MethodGet)
}

// ServeHTTP serves the OpenAPI paths and a 404 Status for any other.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.router.ServeHTTP(w, r)
}

// generation returns the documents of the registry's current content.
func (h *Handler) generation() *generation {
	return h.cache.current(h.reg.All())
}

// serveV2 serves the Swagger 2.0 document, as JSON or, for client-go's
// OpenAPISchema, protobuf.
func (h *Handler) serveV2(w http.ResponseWriter, r *http.Request) {
	rep, ok := negotiate(r.Header.Get("Accept"), protobufV2, protobufV2Accepted)
	if !ok {
		httpstatus.Write(w, httpstatus.NotAcceptable())
		return
	}
	doc, err := h.generation().swagger()
	if err != nil {
		httpstatus.Write(w, apierrors.NewInternalError(err))
		return
	}
	writeRendered(w, r, doc, rep, protobufV2)
}

// serveV3Index serves the list of group/version documents.
func (h *Handler) serveV3Index(w http.ResponseWriter, r *http.Request) {
	if _, ok := negotiate(r.Header.Get("Accept")); !ok {
		httpstatus.Write(w, httpstatus.NotAcceptable())
		return
	}
	doc, err := h.generation().discovery()
	if err != nil {
		httpstatus.Write(w, apierrors.NewInternalError(err))
		return
	}
	writeRendered(w, r, doc, asJSON, "")
}

// serveV3 serves the document of one group/version. With a hash that is
// current the answer may be cached for good; with a stale one the client
// is redirected to the current document, as kube-apiserver does.
func (h *Handler) serveV3(w http.ResponseWriter, r *http.Request) {
	rep, ok := negotiate(r.Header.Get("Accept"), protobufV3, protobufV3Accepted)
	if !ok {
		httpstatus.Write(w, httpstatus.NotAcceptable())
		return
	}
	vars := mux.Vars(r)
	gv := schema.GroupVersion{Group: vars["group"], Version: vars["version"]}
	doc, err := h.generation().groupVersion(gv)
	switch {
	case err != nil:
		httpstatus.Write(w, apierrors.NewInternalError(err))
		return
	case doc == nil:
		httpstatus.Write(w, httpstatus.NotFound())
		return
	}
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != doc.hash {
			http.Redirect(w, r, gvURL(gv, doc.hash), http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	writeRendered(w, r, doc, rep, protobufV3)
}

// writeRendered writes doc in representation rep, protobuf as
// protobufType, with the document's hash as ETag; a request whose
// If-None-Match holds it gets 304.
func writeRendered(w http.ResponseWriter, r *http.Request, doc *rendered, rep representation, protobufType string) {
	body, contentType := doc.json, "application/json"
	if rep == asProtobuf {
		pb, err := doc.protobuf()
		if err != nil {
			httpstatus.Write(w, apierrors.NewInternalError(err))
			return
		}
		body, contentType = pb, protobufType
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Etag", strconv.Quote(doc.hash))
	w.Header().Add("Vary", "Accept")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}
