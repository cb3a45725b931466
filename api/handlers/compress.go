package handlers

import (
	"compress/gzip"
	"net/http"
	"sync"
)

// gzipThreshold is kube-apiserver's: responses of at least 128 KiB are
// compressed when the client accepts gzip; smaller ones are not worth it.
const gzipThreshold = 128 << 10

// gzipLevel is kube-apiserver's too (kubernetes/kubernetes#112296): the
// fastest level compresses API objects nearly as well as the default one
// at a fraction of its CPU, which a large list otherwise spends mostly on
// compression.
const gzipLevel = gzip.BestSpeed

// gzipWriters holds reset writers of gzipLevel: each holds about 800 KiB
// of compressor state, too much to allocate per response.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzipLevel)
	return zw
}}

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
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(w)
	_, _ = zw.Write(body)
	_ = zw.Close()
	zw.Reset(nil)
	gzipWriters.Put(zw)
}
