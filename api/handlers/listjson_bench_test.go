package handlers

import (
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkListResponse serves a list of 100 ConfigMaps of random 1 KiB
// values (about 140 KiB of JSON, compressed as kube-apiserver compresses
// it when the client accepts gzip, as Go's and client-go's transports
// do) over HTTPS and HTTP/2 to 16 parallel clients on one connection,
// as bench-cluster's list figure reads it: what the response costs the
// two ends besides reading the store.
func BenchmarkListResponse(b *testing.B) {
	items := make([][]byte, 100)
	for i := range items {
		v := make([]byte, 640) // 1,280 hexadecimal digits
		_, _ = rand.Read(v)
		items[i] = fmt.Appendf(nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%d","namespace":"default","resourceVersion":"%d"},"data":{"v":"%x"}}`, i, 1000+i, v)
	}
	for _, gzip := range []bool{false, true} {
		b.Run(fmt.Sprintf("gzip=%t", gzip), func(b *testing.B) {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				l, err := newListJSON("ConfigMapList", "v1", metav1.ListMeta{ResourceVersion: "2000"}, items)
				if err != nil {
					b.Error(err)
					return
				}
				writeListJSON(w, gzip, l)
			}))
			srv.EnableHTTP2 = true
			srv.StartTLS()
			defer srv.Close()
			client := srv.Client()
			b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Get(srv.URL)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		})
	}
}
