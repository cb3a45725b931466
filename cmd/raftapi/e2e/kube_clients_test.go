package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Helpers shared by the tests that drive the server with real Kubernetes
// clients (kubectl, client-go typed and dynamic clients, informers, leader
// election).

// protobuf is the Kubernetes Protobuf media type.
const protobuf = "application/vnd.kubernetes.protobuf"

// clientTarget is one node a client talks to.
type clientTarget struct {
	name string // "1node", "3node-leader" or "3node-follower"
	c    *procCluster
	i    int // the node's index in c
}

func (tg clientTarget) addr() string { return tg.c.nodes[tg.i].api }

// readyz is nil once the node at addr answers /readyz with 200.
func readyz(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /readyz: %s", resp.Status)
	}
	return nil
}

// startClientTargets starts a 1-node and a 3-node cluster and returns the
// nodes to drive: the single node, the 3-node leader and a 3-node follower.
func startClientTargets(t *testing.T) []clientTarget {
	t.Helper()
	one := startCluster(t, 1)
	three := startCluster(t, 3)
	l := three.waitLeader(-1)
	return []clientTarget{
		{name: "1node", c: one, i: 0},
		{name: "3node-leader", c: three, i: l},
		{name: "3node-follower", c: three, i: (l + 1) % 3},
	}
}

// restConfigFor is a client configuration for the node at addr, as its
// admin, without client-side rate limiting (see node.restConfig).
func restConfigFor(t testing.TB, addr string) *rest.Config {
	t.Helper()
	cfg, err := restConfigAt(addr)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// mustClientset returns a typed clientset for cfg.
func mustClientset(t *testing.T, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// callCtx is the context of one API call.
func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// mustNamespace creates namespace name (an existing one is fine).
func mustNamespace(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err := cs.CoreV1().Namespaces().Create(callCtx(t), ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("POST /api/v1/namespaces %s: %v", name, err)
	}
}

// pollUntil calls cond until it returns nil or timeout passes; on timeout
// the test fails with cond's last error.
func pollUntil(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exchange is one HTTP request and its response as a client saw them.
type exchange struct {
	method, url string
	reqType     string // request Content-Type
	code        int
	respType    string // response Content-Type
}

func (e exchange) String() string {
	return fmt.Sprintf("%s %s (Content-Type %q) -> %d (Content-Type %q)", e.method, e.url, e.reqType, e.code, e.respType)
}

// wireRecorder records every exchange of the clients built from a config
// it has been installed on.
type wireRecorder struct {
	mu  sync.Mutex
	log []exchange
}

// install makes cfg's transports record into r.
func (r *wireRecorder) install(cfg *rest.Config) {
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return &recordingTransport{r: r, next: rt}
	}
}

// exchanges returns a copy of what has been recorded.
func (r *wireRecorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.log...)
}

type recordingTransport struct {
	r    *wireRecorder
	next http.RoundTripper
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	e := exchange{method: req.Method, url: req.URL.RequestURI(), reqType: req.Header.Get("Content-Type")}
	if err == nil {
		e.code, e.respType = resp.StatusCode, resp.Header.Get("Content-Type")
	}
	rt.r.mu.Lock()
	rt.r.log = append(rt.r.log, e)
	rt.r.mu.Unlock()
	return resp, err
}

// isWatch reports whether the exchange was a watch request.
func (e exchange) isWatch() bool { return strings.Contains(e.url, "watch=true") }

// nextEvent returns the next watch event that is not a BOOKMARK.
func nextEvent(t *testing.T, w watch.Interface, timeout time.Duration) watch.Event {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed early")
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			return ev
		case <-deadline:
			t.Fatalf("no watch event within %v", timeout)
		}
	}
}

// metaName returns the name of a watch event's object.
func metaName(t *testing.T, obj any) string {
	t.Helper()
	if o, ok := obj.(metav1.Object); ok {
		return o.GetName()
	}
	if s, ok := obj.(*metav1.Status); ok {
		t.Fatalf("watch ERROR event: %d %s: %s", s.Code, s.Reason, s.Message)
	}
	t.Fatalf("watch event object %T has no metadata", obj)
	return ""
}

// expectEvents reads the next len(want) non-bookmark events of w and
// checks their types and that they are about object name.
func expectEvents(t *testing.T, w watch.Interface, name string, want ...watch.EventType) {
	t.Helper()
	for _, typ := range want {
		ev := nextEvent(t, w, 15*time.Second)
		if ev.Type == watch.Error {
			metaName(t, ev.Object)
		}
		if got := metaName(t, ev.Object); ev.Type != typ || got != name {
			t.Fatalf("watch event = %s %s, want %s %s", ev.Type, got, typ, name)
		}
	}
}
