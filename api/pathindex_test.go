package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/raftapi/raftapi/api/resource/resourcetest"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// TestPathIndexRoutesAsTheRouter: for every route of a server with the
// built-in resources and a custom one, and paths made from its pattern
// with variables that look like other paths' literals, the index finds
// the route, and the variables, that mux's router finds, or leaves the
// request to the router when the router's route is one the index does not
// hold. Paths no route matches, and other methods on known paths, are
// left to the router.
func TestPathIndexRoutesAsTheRouter(t *testing.T) {
	srv := runServer(t)
	srv.Register(resourcetest.CronTab())
	table := srv.router.Load()
	if len(table.index.routes) < 100 {
		t.Fatalf("the index holds %d routes, want every resource route", len(table.index.routes))
	}

	values := []string{"default", "status", "namespaces", "configmaps", "v1", "{}"}
	variable := regexp.MustCompile(`\{[^/]+\}`)
	var paths []string
	err := table.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tmpl, err := route.GetPathTemplate()
		if err != nil {
			return nil // a prefix route
		}
		for i := range values {
			n := 0
			paths = append(paths, variable.ReplaceAllStringFunc(tmpl, func(string) string {
				n++
				return values[(i+n)%len(values)]
			}))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "/api/v1/configmaps/", "/api/v1//configmaps", "/", "/api/v1/namespaces/default/nothings",
		"/apis/stable.example.com/v1/namespaces/default/crontabs/x/y/z")

	held := map[string]bool{} // method and template of every route the index holds
	for key, r := range table.index.routes {
		method, _, _ := strings.Cut(key, "/")
		held[method+" "+r.template] = true
	}
	var indexed int
	for _, p := range paths {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead} {
			req := httptest.NewRequest(method, "http://example.com"+p, nil)
			got, vars := table.index.lookup(method, req.URL.Path)
			var m mux.RouteMatch
			matched := table.router.Match(req, &m) && m.MatchErr == nil
			switch {
			case got == nil && !matched:
			case got == nil:
				if tmpl, _ := m.Route.GetPathTemplate(); held[method+" "+tmpl] {
					t.Errorf("%s %s: the index holds no route, the router serves it with %s", method, p, tmpl)
				}
			case !matched:
				t.Errorf("%s %s: the index routes it to %s, the router to none", method, p, got.template)
			default:
				indexed++
				if tmpl, _ := m.Route.GetPathTemplate(); tmpl != got.template {
					t.Errorf("%s %s: the index routes it to %s, the router to %s", method, p, got.template, tmpl)
				}
				for k, v := range m.Vars {
					if vars[k] != v {
						t.Errorf("%s %s: variable %s = %q from the index, %q from the router", method, p, k, vars[k], v)
					}
				}
				if len(vars) != len(m.Vars) {
					t.Errorf("%s %s: variables %v from the index, %v from the router", method, p, vars, m.Vars)
				}
			}
		}
	}
	if indexed < len(paths) {
		t.Fatalf("only %d of %d paths and methods were routed by the index", indexed, len(paths)*6)
	}
}

// TestPathIndexFirstRegisteredWins: when two patterns match a path, the
// one registered first serves it, as in mux's router, whichever shape
// each has.
func TestPathIndexFirstRegisteredWins(t *testing.T) {
	patterns := []string{"/a/{name}/status", "/a/{ns}/{plural}", "/a/b/{plural}"}
	for _, order := range [][]int{{0, 1, 2}, {1, 0, 2}, {2, 1, 0}, {2, 0, 1}} {
		x, router := newPathIndex(), mux.NewRouter()
		for _, i := range order {
			h := http.NotFoundHandler()
			x.add(http.MethodGet, patterns[i], h)
			router.Handle(patterns[i], h).Methods(http.MethodGet)
		}
		for _, p := range []string{"/a/b/status", "/a/c/status", "/a/b/c"} {
			req := httptest.NewRequest(http.MethodGet, p, nil)
			var m mux.RouteMatch
			if !router.Match(req, &m) {
				t.Fatalf("the router matches no route of %s", p)
			}
			want, _ := m.Route.GetPathTemplate()
			if got, _ := x.lookup(http.MethodGet, p); got == nil || got.template != want {
				t.Errorf("order %v, %s: the index routes to %v, the router to %s", order, p, got, want)
			}
		}
	}
}

// BenchmarkRoute: finding the route of an update of a namespaced ConfigMap
// among the built-in resources' routes, by the index and by the router.
func BenchmarkRoute(b *testing.B) {
	table := runServer(b).router.Load()
	req := httptest.NewRequest(http.MethodPut, "/api/v1/namespaces/default/configmaps/x", nil)
	b.Run("index", func(b *testing.B) {
		for range b.N {
			if r, _ := table.index.lookup(req.Method, req.URL.Path); r == nil {
				b.Fatal("no route")
			}
		}
	})
	b.Run("router", func(b *testing.B) {
		for range b.N {
			var m mux.RouteMatch
			if !table.router.Match(req, &m) {
				b.Fatal("no route")
			}
		}
	})
}

// runServer returns a server of a one-node cluster, run until the test
// ends, once it serves its custom resources.
func runServer(t testing.TB) *Server {
	t.Helper()
	c := storetest.NewCluster(t, 1)
	srv := NewServer(c.Nodes[c.WaitForLeader()].Store, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); srv.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-srv.serving.Synced():
	case <-time.After(30 * time.Second):
		t.Fatal("custom resources not served within 30s")
	}
	return srv
}
