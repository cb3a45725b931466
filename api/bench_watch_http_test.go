package api_test

import (
	"bufio"
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkHTTPWatchFanout creates ConfigMaps while 200 watchers, each on
// its own connection, read every event: the server's cost of one event
// delivered to one watcher (events/s), raft commits and the readers'
// line splitting included.
func BenchmarkHTTPWatchFanout(b *testing.B) {
	const watchers = 200
	s := benchServe(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var delivered atomic.Int64
	var wg sync.WaitGroup
	for range watchers {
		resp := benchOpenWatch(b, ctx, s.URL+benchCMs+"?watch=1")
		wg.Go(func() {
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				delivered.Add(1)
			}
		})
	}
	bodies := benchBodies(b, benchKinds[0], b.N)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections()
	b.ResetTimer()
	var next atomic.Int64
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := benchPost(client, s.URL+benchCMs, bodies[next.Add(1)-1]); err != nil {
				b.Error(err)
				return
			}
		}
	})
	want := int64(b.N) * watchers
	deadline := time.Now().Add(2 * time.Minute)
	for delivered.Load() < want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	if got := delivered.Load(); got < want {
		b.Fatalf("%d of %d events delivered", got, want)
	}
	b.ReportMetric(float64(want)/b.Elapsed().Seconds(), "events/s")
	cancel()
	wg.Wait()
}

// benchOpenWatch opens a watch at url on a connection of its own.
func benchOpenWatch(b *testing.B, ctx context.Context, url string) *http.Response {
	b.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("watch: status %d", resp.StatusCode)
	}
	return resp
}
