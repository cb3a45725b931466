package handlers

import (
	"compress/gzip"
	"net/http"
)

// gzipThreshold is kube-apiserver's: responses of at least 128 KiB are
// compressed when the client accepts gzip; smaller ones are not worth it.
const gzipThreshold = 128 << 10

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
