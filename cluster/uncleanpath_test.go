package cluster

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// rawResponse is one answer to rawGet.
type rawResponse struct {
	code   int
	header http.Header
	body   string
}

// rawGet sends GET rawPath through rt to the server at base ("https://host:port")
// with the path on the request line exactly as given, not cleaned or
// re-escaped, and returns the answer without following redirects.
func rawGet(t *testing.T, rt http.RoundTripper, base, rawPath string) rawResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/", nil)
	if err != nil {
		t.Fatalf("GET %s: %v", rawPath, err)
	}
	req.URL.Opaque = rawPath
	client := &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", rawPath, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", rawPath, err)
	}
	return rawResponse{code: resp.StatusCode, header: resp.Header, body: string(b)}
}

// TestUncleanPathsThroughNode checks, through the node's whole handler
// (its ServeMux of raftapi paths in front of the API), that a path with
// "..", ".", "//" or an escaped slash gets a 404 Status from the API,
// never ServeMux's HTML redirect to the cleaned path nor the resource
// that path names.
func TestUncleanPathsThroughNode(t *testing.T) {
	paths := []string{
		"/api/v1/namespaces/default/../kube-system/configmaps",
		"/api/v1//namespaces",
		"/api/v1/namespaces/default/configmaps%2Ffoo",
		"/api/v1/namespaces/./default",
		"/metrics/../api/v1/namespaces",
		"/raftapi//v1/status",
	}

	// The requests reach a server with their paths as written.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RequestURI)
	}))
	defer echo.Close()
	for _, p := range paths {
		if got := rawGet(t, http.DefaultTransport, echo.URL, p); got.body != p {
			t.Fatalf("request for %s reached the server as %s", p, got.body)
		}
	}

	n := startSingleNode(t)
	base, rt := baseURL(n), adminClient(t, n).Transport
	// configmaps%2Ffoo unescaped is the configmap foo: make it exist.
	pollUntil(t, "configmap default/foo created", func() (bool, string) {
		code, body := httpDo(t, n, http.MethodPost, "/api/v1/namespaces/default/configmaps", configMap("foo", "v"))
		return code == http.StatusCreated || code == http.StatusConflict, body
	})
	if got := rawGet(t, rt, base, "/api/v1/namespaces/default/configmaps/foo"); got.code != http.StatusOK {
		t.Fatalf("GET of the clean path: %d %s", got.code, got.body)
	}

	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			got := rawGet(t, rt, base, p)
			if loc := got.header.Get("Location"); loc != "" {
				t.Errorf("GET %s: redirected to %s", p, loc)
			}
			if ct := got.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("GET %s: Content-Type %q, want application/json", p, ct)
			}
			var st struct {
				Kind       string `json:"kind"`
				APIVersion string `json:"apiVersion"`
				Status     string `json:"status"`
				Reason     string `json:"reason"`
				Code       int    `json:"code"`
			}
			if err := json.Unmarshal([]byte(got.body), &st); err != nil {
				t.Fatalf("GET %s: %d, body is not JSON (%v): %s", p, got.code, err, got.body)
			}
			if got.code != http.StatusNotFound || st.Kind != "Status" || st.APIVersion != "v1" ||
				st.Status != "Failure" || st.Reason != "NotFound" || st.Code != http.StatusNotFound {
				t.Errorf("GET %s: %d %s, want a 404 NotFound Status", p, got.code, got.body)
			}
		})
	}
}
