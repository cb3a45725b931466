package api_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestGzipLargeResponses checks that list and get responses of at least
// 128 KiB are gzip-encoded when the client accepts it, and that small
// responses and clients that do not accept gzip get plain bodies.
func TestGzipLargeResponses(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	big := strings.Repeat("x", 100<<10)
	for i := 0; i < 3; i++ {
		createCM(t, s, ns, configMap(fmt.Sprintf("big-%d", i), nil, map[string]string{"v": big}))
	}
	createCM(t, s, ns, configMap("small", nil, map[string]string{"v": "x"}))
	createCM(t, s, ns, configMap("huge", nil, map[string]string{"v": strings.Repeat("y", 200<<10)}))
	gz := header{"Accept-Encoding", "gzip"}

	r := s.do(t, http.MethodGet, cmPath(ns), nil, gz).wantCode(t, http.StatusOK)
	if r.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("list of %d bytes: Content-Encoding %q, want gzip", len(r.Body), r.Header.Get("Content-Encoding"))
	}
	var list corev1.ConfigMapList
	if err := jsonFromGzip(r.Body, &list); err != nil || len(list.Items) != 5 {
		t.Fatalf("gzip list body: %v, %d items", err, len(list.Items))
	}

	one := s.do(t, http.MethodGet, cmPath(ns, "huge"), nil, gz).wantCode(t, http.StatusOK)
	var cm corev1.ConfigMap
	if one.Header.Get("Content-Encoding") != "gzip" || jsonFromGzip(one.Body, &cm) != nil || len(cm.Data["v"]) != 200<<10 {
		t.Errorf("get of a 200 KiB object: Content-Encoding %q, decoded %d bytes of data", one.Header.Get("Content-Encoding"), len(cm.Data["v"]))
	}

	plain := s.do(t, http.MethodGet, cmPath(ns), nil, header{"Accept-Encoding", "identity"}).wantCode(t, http.StatusOK)
	if plain.Header.Get("Content-Encoding") != "" || len(plain.Body) < 300<<10 {
		t.Errorf("list without gzip: Content-Encoding %q, %d bytes", plain.Header.Get("Content-Encoding"), len(plain.Body))
	}
	small := s.do(t, http.MethodGet, cmPath(ns, "small"), nil, gz).wantCode(t, http.StatusOK)
	if small.Header.Get("Content-Encoding") != "" {
		t.Errorf("small get: Content-Encoding %q, want none", small.Header.Get("Content-Encoding"))
	}
	refused := s.do(t, http.MethodGet, cmPath(ns), nil, header{"Accept-Encoding", "gzip;q=0"}).wantCode(t, http.StatusOK)
	if refused.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0: Content-Encoding %q, want none", refused.Header.Get("Content-Encoding"))
	}
}

func jsonFromGzip(body []byte, v any) error {
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return err
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}
