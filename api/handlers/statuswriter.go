package handlers

import (
	"net/http"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
)

// StatusWriter carries, with the response, whether Status objects go out
// as Protobuf: kube-apiserver negotiates errors like any other response,
// and clients asking for Protobuf first get Protobuf Statuses.
type StatusWriter struct {
	http.ResponseWriter
	protobuf bool
	codecs   *codec.Codecs
}

// NewStatusWriter wraps w for request r.
func NewStatusWriter(w http.ResponseWriter, r *http.Request, codecs *codec.Codecs) *StatusWriter {
	return &StatusWriter{ResponseWriter: w, protobuf: negotiation.PrefersProtobuf(r), codecs: codecs}
}

// Flush implements http.Flusher for watch streams.
func (w *StatusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
