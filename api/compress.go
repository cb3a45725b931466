package api

import (
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
)

// gzipThreshold is kube-apiserver's: responses of at least 128 KiB are
// compressed when the client accepts gzip; smaller ones are not worth it.
const gzipThreshold = 128 << 10

// acceptsGzip reports whether the request's Accept-Encoding allows gzip.
func acceptsGzip(r *http.Request) bool {
	for _, enc := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(enc), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && !zeroQuality(params) {
			return true
		}
	}
	return false
}

// zeroQuality reports whether a coding's parameters say q=0 (refused).
func zeroQuality(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(k, "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q == 0
		}
	}
	return false
}

// writeMaybeCompressed writes a response body, gzip-encoded when the
// client accepts it and the body reaches gzipThreshold.
func writeMaybeCompressed(w http.ResponseWriter, acceptGzip bool, code int, body []byte) {
	w.Header().Add("Vary", "Accept-Encoding")
	if !acceptGzip || len(body) < gzipThreshold {
		w.WriteHeader(code)
		_, _ = w.Write(body)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Del("Content-Length")
	w.WriteHeader(code)
	zw := gzip.NewWriter(w)
	_, _ = zw.Write(body)
	_ = zw.Close()
}
