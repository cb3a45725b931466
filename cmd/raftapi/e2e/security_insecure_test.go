package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestSecurityInsecureHTTP checks --insecure-http: on a loopback address
// the API is plain HTTP and the log warns of the risk; on any address it
// refuses to start, naming the flag that would allow it.
func TestSecurityInsecureHTTP(t *testing.T) {
	t.Run("loopback", func(t *testing.T) {
		n := secNewNode(t, "plain", false)
		n.start(t, "--insecure-http")
		base := "http://" + n.api
		hc := &http.Client{Timeout: 15 * time.Second}
		secEventually(t, secFormTimeout, "plain HTTP node ready", func() error {
			if !n.running() {
				return secFatal{secWrapOut(fmt.Errorf("exited"), n.log(0))}
			}
			r, err := secDo(hc, http.MethodGet, base+"/readyz")
			if err == nil && r.code != http.StatusOK {
				return fmt.Errorf("HTTP %d: %s", r.code, r.body)
			}
			return err
		})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "kubectl", "--server", base, "get", "namespaces").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "kube-system") {
			t.Fatalf("kubectl over plain HTTP: %v\n%s", err, out)
		}
		log := n.log(0)
		if !strings.Contains(log, "plain HTTP") || !strings.Contains(log, "without authentication") {
			t.Errorf("the log gives no warning of plain HTTP without authentication:\n%s", tail(log, 2000))
		}
		if strings.Contains(log, "level=WARN msg=\"serving the API over plain HTTP") {
			t.Logf("warning: %s", secLine(log, "serving the API over plain HTTP"))
		}
	})
	t.Run("any-address refused", func(t *testing.T) {
		n := secNewNode(t, "plain-any", false)
		_, port, _ := net.SplitHostPort(n.api)
		n.api = net.JoinHostPort("0.0.0.0", port)
		n.start(t, "--insecure-http")
		secWaitFailed(t, n, 0, "--insecure-http-allow-any-address")
	})
}

// secLine returns the first line of s containing want.
func secLine(s, want string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, want) {
			return l
		}
	}
	return ""
}
