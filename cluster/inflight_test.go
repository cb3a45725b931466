package cluster

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestInflight: with one read-only and one mutating slot held, another
// request of the same kind gets kube's 429 with Retry-After; the other
// kind, watches (every watch the handlers serve: any watch parameter
// but "0" and "false" on a collection), health checks and system:masters still pass.
func TestInflight(t *testing.T) {
	l := newInflight(1, 1)
	release := make(chan struct{})
	entered := make(chan struct{}, 2)
	h := l.limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Hold") != "" {
			entered <- struct{}{}
			<-release
		}
	}))
	alice := User{Name: "alice", Groups: []string{authenticated}}
	admin := User{Name: "root", Groups: []string{"system:masters", authenticated}}
	req := func(method, target string, u User, hold bool) *http.Request {
		r := httptest.NewRequest(method, target, nil)
		if hold {
			r.Header.Set("X-Hold", "1")
		}
		return r.WithContext(context.WithValue(r.Context(), userKey{}, u))
	}
	serve := func(r *http.Request) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	done := make(chan struct{})
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		go func() {
			serve(req(m, "/api/v1/namespaces/default/configmaps", alice, true))
			done <- struct{}{}
		}()
		<-entered
	}
	for _, tc := range []struct {
		name, method, target string
		u                    User
		code                 int
	}{
		{"a second read", http.MethodGet, "/api/v1/namespaces", alice, http.StatusTooManyRequests},
		{"a second write", http.MethodDelete, "/api/v1/namespaces/default/configmaps/x", alice, http.StatusTooManyRequests},
		{"a watch", http.MethodGet, "/api/v1/configmaps?watch=true", alice, http.StatusOK},
		{"a watch path", http.MethodGet, "/api/v1/watch/configmaps", alice, http.StatusOK},
		{"a watch=True", http.MethodGet, "/api/v1/configmaps?watch=True", alice, http.StatusOK},
		{"a bare watch parameter", http.MethodGet, "/api/v1/configmaps?watch", alice, http.StatusOK},
		{"watch=false is a list", http.MethodGet, "/api/v1/configmaps?watch=false", alice, http.StatusTooManyRequests},
		{"a named get with watch=true is a get", http.MethodGet, "/api/v1/namespaces/default/configmaps/x?watch=true", alice, http.StatusTooManyRequests},
		{"readyz", http.MethodGet, "/readyz", User{Name: anonymousUser}, http.StatusOK},
		{"system:masters", http.MethodGet, "/api/v1/namespaces", admin, http.StatusOK},
	} {
		w := serve(req(tc.method, tc.target, tc.u, false))
		if w.Code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, w.Code, w.Body, tc.code)
			continue
		}
		if tc.code == http.StatusTooManyRequests {
			body := w.Body.String()
			if w.Header().Get("Retry-After") != "1" || !strings.Contains(body, `"reason":"TooManyRequests"`) ||
				!strings.Contains(body, "Too many requests, please try again later.") || !strings.Contains(body, `"retryAfterSeconds":1`) {
				t.Errorf("%s: not kube's 429: %v %s", tc.name, w.Header(), body)
			}
		}
	}
	close(release)
	<-done
	<-done
	if w := serve(req(http.MethodGet, "/api/v1/namespaces", alice, false)); w.Code != http.StatusOK {
		t.Errorf("after release: %d", w.Code)
	}
}
