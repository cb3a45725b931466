package traffic

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

func TestOutcome(t *testing.T) {
	dial := &net.OpError{Op: "dial", Err: errors.New("connection refused")}
	read := &net.OpError{Op: "read", Err: errors.New("connection reset")}
	cases := []struct {
		name string
		r    reply
		want history.Outcome
	}{
		{"created", reply{code: 201}, history.OK},
		{"conflict", reply{code: 409}, history.Failed},
		{"not found", reply{code: 404}, history.Failed},
		{"unavailable: nothing proposed", reply{code: 503}, history.Failed},
		{"unknown outcome", reply{code: 504}, history.Unknown},
		{"internal error", reply{code: 500}, history.Unknown},
		{"never connected", reply{err: fmt.Errorf("post: %w", dial), unsent: true}, history.Failed},
		{"TLS handshake timeout", reply{err: errors.New("net/http: TLS handshake timeout"), unsent: true}, history.Failed},
		{"deadline before a connection", reply{err: context.DeadlineExceeded, unsent: true}, history.Failed},
		{"connection lost", reply{err: read}, history.Unknown},
		{"timeout", reply{err: context.DeadlineExceeded}, history.Unknown},
		{"TLS alert after the handshake", reply{err: &net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}}, history.Unknown},
	}
	for _, tc := range cases {
		if got := outcome(tc.r); got != tc.want {
			t.Errorf("%s: outcome %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestRegisterAndList runs the client against a fake API answering one
// configmap.
func TestRegisterAndList(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/ns/configmaps/r1-1":
			fmt.Fprint(w, `{"metadata":{"name":"r1-1","resourceVersion":"7"},"data":{"v":"x"}}`)
		case r.Method == http.MethodGet && r.URL.Query().Get("continue") == "":
			fmt.Fprint(w, `{"metadata":{"resourceVersion":"9","continue":"c1"},"items":[{"metadata":{"name":"kube-root-ca.crt","resourceVersion":"2"},"data":{"ca.crt":"-"}},{"metadata":{"name":"r1-1","resourceVersion":"7"},"data":{"v":"x"}}]}`)
		case r.Method == http.MethodGet:
			fmt.Fprint(w, `{"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"r1-2","resourceVersion":"8"},"data":{"v":"y"}}]}`)
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"kind":"Status","code":409,"reason":"AlreadyExists","message":"exists"}`)
		}
	}))
	defer srv.Close()
	c := NewClient(ClientConfig{Nodes: map[string]string{"n1": srv.URL}, Namespace: "ns", Timeout: 5 * time.Second})
	ctx := context.Background()
	g := c.Get(ctx, history.Op{Node: "n1", Kind: history.Get, Key: "r1-1"})
	if g.Outcome != history.OK || !g.Found || g.Value != "x" || g.ResultRV != 7 {
		t.Errorf("get: %+v", g)
	}
	cr := c.Create(ctx, history.Op{Node: "n1", Kind: history.Create, Key: "r1-1", Value: "z"})
	if cr.Outcome != history.Failed || cr.Code != 409 {
		t.Errorf("create: %+v", cr)
	}
	l := c.List(ctx, history.Op{Node: "n1", Kind: history.List, Mode: history.MostRecent, Limit: 1})
	if l.Outcome != history.OK || l.ResultRV != 9 || len(l.Pages) != 2 || len(l.Items) != 2 || l.Items[1].Key != "r1-2" {
		t.Errorf("paginated list: %+v", l)
	}
}
