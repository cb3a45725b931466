package audit

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// TestWatch: a watch is long-running: ResponseStarted is written when it
// starts streaming, ResponseComplete when it ends, and its stream is
// not recorded even at level RequestResponse.
func TestWatch(t *testing.T) {
	a, path := newTestAuditor(t, policyAt("RequestResponse"))
	end := make(chan struct{})
	watch := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json;stream=watch")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"type":"ADDED","object":`+testConfigMap+"}\n")
		http.NewResponseController(w).Flush()
		select {
		case <-end:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(a.Handler(withTestAuth(watch)))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/namespaces/ns/configmaps?watch=true", nil)
	req.Header.Set(testUserHeader, "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatalf("first watch event: %v", err)
	}
	started := waitEvents(t, path, 2)
	if got := stages(started); !cmp.Equal(got, []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted}) {
		t.Fatalf("while streaming: stages %v", got)
	}
	if ev := started[1]; ev.Verb != "watch" || ev.ResponseStatus == nil || ev.ResponseStatus.Code != 200 || ev.ResponseObject != nil {
		t.Errorf("ResponseStarted: %+v", ev)
	}
	close(end)
	evs := waitEvents(t, path, 3)
	if ev := evs[2]; ev.Stage != auditv1.StageResponseComplete || ev.ResponseStatus.Code != 200 || ev.ResponseObject != nil {
		t.Errorf("ResponseComplete: %+v", ev)
	}
}
