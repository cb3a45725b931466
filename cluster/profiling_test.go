package cluster

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProfilingRoutes: --profiling serves pprof's index, a named profile
// and the symbol table under /debug/pprof/, as kube-apiserver does.
func TestProfilingRoutes(t *testing.T) {
	mux := http.NewServeMux()
	mountProfiling(mux)
	for path, want := range map[string]string{
		"/debug/pprof/":                  "goroutine",
		"/debug/pprof/goroutine?debug=1": "goroutine profile:",
		"/debug/pprof/symbol":            "num_symbols",
	} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), want) {
			t.Errorf("GET %s: %d, body without %q: %.200s", path, w.Code, want, w.Body)
		}
	}
}
