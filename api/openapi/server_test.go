package openapi_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"

	"github.com/raftapi/raftapi/api/discovery"
	"github.com/raftapi/raftapi/api/openapi"
	"github.com/raftapi/raftapi/api/resource"
)

// newServer serves the discovery and OpenAPI documents of reg, mounted
// side by side on one router as the API server mounts them.
func newServer(t *testing.T, reg *resource.Registry) *httptest.Server {
	t.Helper()
	r := mux.NewRouter()
	discovery.NewHandler(reg).Routes(r)
	openapi.NewHandler(reg).Routes(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}
