package traffic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

// TestInitialEventsWatcher follows a fake watch stream with initial
// events, the initial-events-end bookmark and a change, and checks what
// the watcher recorded.
func TestInitialEventsWatcher(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("sendInitialEvents") != "true" {
			<-r.Context().Done()
			return
		}
		fmt.Fprintln(w, `{"type":"ADDED","object":{"metadata":{"name":"kube-root-ca.crt","resourceVersion":"2"},"data":{"ca.crt":"-"}}}`)
		fmt.Fprintln(w, `{"type":"ADDED","object":{"metadata":{"name":"r1-1","resourceVersion":"3"},"data":{"v":"x"}}}`)
		fmt.Fprintln(w, `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5","annotations":{"k8s.io/initial-events-end":"true"}}}}`)
		fmt.Fprintln(w, `{"type":"MODIFIED","object":{"metadata":{"name":"r1-1","resourceVersion":"6"},"data":{"v":"y"}}}`)
	}))
	defer srv.Close()
	rec := history.NewRecorder("ns", []string{"n1"})
	w := &watcher{id: 1, mode: history.WatchInitialEvents, res: ConfigMaps, c: NewClient(ClientConfig{Nodes: map[string]string{"n1": srv.URL}, Namespace: "ns", Timeout: 5 * time.Second}),
		rec: rec, nodes: []string{"n1"}, rnd: rand.New(rand.NewPCG(1, 1)), stopped: make(chan struct{})}
	w.target.Store(6)
	close(w.stopped)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w.run(ctx)
	var got []string
	for _, e := range rec.History().Events {
		got = append(got, fmt.Sprintf("%s/%d/initial=%v/end=%v", e.Type, e.RV, e.Initial, e.InitialEnd))
	}
	want := []string{"START/0/initial=false/end=false", "ADDED/3/initial=true/end=false", "BOOKMARK/5/initial=false/end=true",
		"MODIFIED/6/initial=false/end=false", "STOP/6/initial=false/end=false"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("recorded %v, want %v", got, want)
	}
}
