package discovery_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/raftapi/raftapi/api/discovery"
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/api/resource/resourcetest"
)

// testRegistry serves configmaps, secrets and namespaces in the core group
// and leases in coordination.k8s.io.
func testRegistry() *resource.Registry {
	return resource.NewRegistry(resourcetest.Typed()...)
}

// request is one request a test server saw.
type request struct {
	path, accept, contentType string
}

// recorder remembers the requests a handler served.
type recorder struct {
	mu   sync.Mutex
	seen []request
}

// wrap returns next, recording each request and its response Content-Type.
// A request is recorded when its response header is written, before the
// client can read any of it, so a client that has its answer finds the
// request recorded.
func (rec *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &recordingWriter{ResponseWriter: w, rec: rec, r: r}
		next.ServeHTTP(rw, r)
		rw.record() // a handler that wrote nothing
	})
}

// recordingWriter records its request once, when the header is written.
type recordingWriter struct {
	http.ResponseWriter
	rec  *recorder
	r    *http.Request
	done bool
}

// WriteHeader records the request, then writes the header.
func (w *recordingWriter) WriteHeader(code int) {
	w.record()
	w.ResponseWriter.WriteHeader(code)
}

// Write records the request if the header was not written yet.
func (w *recordingWriter) Write(b []byte) (int, error) {
	w.record()
	return w.ResponseWriter.Write(b)
}

// record appends the request to the recorder's list, once.
func (w *recordingWriter) record() {
	if w.done {
		return
	}
	w.done = true
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	w.rec.seen = append(w.rec.seen, request{w.r.URL.Path, w.r.Header.Get("Accept"), w.Header().Get("Content-Type")})
}

// requests returns the requests seen so far.
func (rec *recorder) requests() []request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]request(nil), rec.seen...)
}

// newServer serves the discovery handler of reg.
func newServer(t *testing.T, reg *resource.Registry) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := httptest.NewServer(rec.wrap(discovery.NewHandler(reg)))
	t.Cleanup(srv.Close)
	return srv, rec
}
