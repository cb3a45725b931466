package cluster

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWithRecover: a panic before the response began is kube's 500 Status
// and one error log line with the stack; after it began, the response is
// cut; http.ErrAbortHandler passes through untouched.
func TestWithRecover(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	h := withRecover(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/late":
			w.WriteHeader(http.StatusOK)
			panic("late")
		case "/abort":
			panic(http.ErrAbortHandler)
		}
		panic("boom")
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/early", nil))
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), `"reason":"InternalError"`) || !strings.Contains(w.Body.String(), "boom") {
		t.Fatalf("early panic: %d %s", w.Code, w.Body)
	}
	if !strings.Contains(logs.String(), `"level":"ERROR"`) || !strings.Contains(logs.String(), "recover_test.go") || strings.Count(strings.TrimSpace(logs.String()), "\n") != 0 {
		t.Fatalf("log: %s", logs.String())
	}
	for _, path := range []string{"/late", "/abort"} {
		func() {
			defer func() {
				if p := recover(); p != http.ErrAbortHandler {
					t.Errorf("%s: recovered %v, want http.ErrAbortHandler", path, p)
				}
			}()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
		}()
	}
}
