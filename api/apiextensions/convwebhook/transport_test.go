package convwebhook_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/raftapi/raftapi/api/apiextensions/convwebhook"
)

// convertOneFails converts one v1 Foo to v2 through c, expecting a
// failure whose message starts with kube's prefix for a failed call, and
// returns the message.
func convertOneFails(t *testing.T, c *convwebhook.Converter) string {
	t.Helper()
	_, err := c.Convert([]map[string]any{foo("a", 1)}, "v2")
	checkStatus(t, err, "conversion webhook for example.com/v1, Kind=Foo failed: Post \"https://127.0.0.1:...")
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestConvertRefusesAnUntrustedCertificate(t *testing.T) {
	h := newHook(t, convertAll(rename))
	tests := []struct {
		name     string
		caBundle []byte
	}{
		{"another CA", otherCA(t)},
		{"the system roots", nil},
		{"a blank caBundle means the system roots", []byte(" \n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustNew(t, webhookCRD(h.srv.URL+"/convert", tt.caBundle))
			if msg := convertOneFails(t, c); !strings.Contains(msg, "x509: certificate signed by unknown authority") {
				t.Errorf("error %q, want an unknown authority", msg)
			}
		})
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("the webhook got %d requests over untrusted TLS", n)
	}
}

func TestConvertTimesOut(t *testing.T) {
	release := make(chan struct{})
	h := newRawHook(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before the server's Close
	c, err := convwebhook.NewWithTimeout(h.crd(), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	msg := convertOneFails(t, c)
	if !strings.Contains(msg, "/convert?timeout=100ms\": ") || !strings.Contains(msg, "deadline exceeded") {
		t.Errorf("error %q, want the deadline of the ?timeout=100ms request", msg)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the call took %v with a 100ms timeout", took)
	}
}

func TestConvertFailsWhenTheWebhookIsDown(t *testing.T) {
	h := newHook(t, convertAll(rename))
	c := mustNew(t, h.crd())
	h.srv.Close()
	if msg := convertOneFails(t, c); !strings.Contains(msg, "connection refused") {
		t.Errorf("error %q, want connection refused", msg)
	}
}
