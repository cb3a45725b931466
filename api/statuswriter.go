package api

import (
	"net/http"
)

// statusWriter carries, with the response, whether Status objects go out
// as Protobuf: kube-apiserver negotiates errors like any other response,
// and clients asking for Protobuf first get Protobuf Statuses.
type statusWriter struct {
	http.ResponseWriter
	protobuf bool
	codecs   *codecs
}

// Flush implements http.Flusher for watch streams.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// prefersProtobuf reports whether the first media type the request
// accepts is Protobuf.
func prefersProtobuf(r *http.Request) bool {
	for _, a := range parseAccept(r.Header.Get("Accept")) {
		if a.q > 0 {
			return a.typ == mediaProtobuf && a.params["as"] == ""
		}
	}
	return false
}
