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
func (rec *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.seen = append(rec.seen, request{r.URL.Path, r.Header.Get("Accept"), w.Header().Get("Content-Type")})
	})
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
