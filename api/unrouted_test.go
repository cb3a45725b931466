package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/raftapi/raftapi/api/handlers"
	"github.com/raftapi/raftapi/api/resource/resourcetest"
)

// TestUnroutedRequestTakesTheNewRoutes: a request that picked the router
// of just before a resource was published, and finds no route there, is
// answered by the routes current when it is answered, not told 404 (a
// node that had just published its custom resources answered one request
// for them 404 so, in a chaos run).
func TestUnroutedRequestTakesTheNewRoutes(t *testing.T) {
	srv := runServer(t)
	old := srv.router.Load()
	srv.Register(resourcetest.CronTab())
	const path = "/apis/stable.example.com/v1/namespaces/default/crontabs"
	req := httptest.NewRequest(http.MethodGet, path, nil)
	rec := httptest.NewRecorder()
	old.ServeHTTP(handlers.NewStatusWriter(rec, req, srv.registry.Codecs()), req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s through the router of before it was registered: %d %s, want 200 from the current routes", path, rec.Code, rec.Body)
	}

	req = httptest.NewRequest(http.MethodGet, "/apis/stable.example.com/v1/namespaces/default/nothings", nil)
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound {
		t.Fatalf("GET of a path no router serves: %d %s, want 404", rec.Code, rec.Body)
	}
}
