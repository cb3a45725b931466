package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/raftapi/raftapi/api/httpstatus"
)

// withRecover turns a handler's panic into kube-apiserver's 500 Status
// and an error log line with the stack, instead of the HTTP server's bare
// closed connection; the node goes on serving. http.ErrAbortHandler, a
// handler's way to abort a response, passes through.
func withRecover(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &writeTracker{ResponseWriter: w}
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(p)
			}
			log.Error("panic serving a request", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if rw.wrote {
				// The response is under way: all that is left is to
				// cut it, as the server does.
				panic(http.ErrAbortHandler)
			}
			httpstatus.Write(w, apierrors.NewInternalError(fmt.Errorf("%v", p)))
		}()
		next.ServeHTTP(rw, r)
	})
}

// writeTracker notes whether a response has begun.
type writeTracker struct {
	http.ResponseWriter
	wrote bool
}

func (t *writeTracker) WriteHeader(code int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(code)
}

func (t *writeTracker) Write(b []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer
// (flushing a watch, deadlines).
func (t *writeTracker) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// Flush flushes the underlying writer, for streaming handlers that test
// for http.Flusher.
func (t *writeTracker) Flush() {
	t.wrote = true
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
