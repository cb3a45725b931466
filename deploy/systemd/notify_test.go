package systemd

import (
	"bytes"
	"crypto/tls"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readyTimeout bounds how long a single node may take to report READY=1.
const readyTimeout = 60 * time.Second

// TestServeNotifiesSystemd runs the unit's ExecStart as systemd would (its
// state directory, its credentials directory holding the token, the other
// settings from RAFTAPI_* variables as from the EnvironmentFile, and
// NOTIFY_SOCKET naming a socket this test listens on, as systemd does) and
// checks the Type=notify contract: READY=1 with a STATUS= line once the
// node answers /readyz, and STOPPING=1 on SIGTERM before it exits.
// Without READY=1, systemd would fail the start after TimeoutStartSec.
func TestServeNotifiesSystemd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node")
	}
	u := parseUnit(t, unitFile)
	bin := raftapiBinary(t)
	dir := t.TempDir()
	state, creds := filepath.Join(dir, "state"), filepath.Join(dir, "credentials")
	for _, d := range []string{state, creds} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeToken(t, bin, filepath.Join(creds, "token"))
	args := u.execStart(t)[1:]
	for i, a := range args {
		a = strings.ReplaceAll(a, "%d", creds)
		args[i] = strings.Replace(a, stateDir, state, 1)
	}
	socket := filepath.Join(dir, "notify")
	notifications := listenNotify(t, socket)
	api := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+socket,
		"RAFTAPI_LISTEN="+api, "RAFTAPI_PEER_LISTEN=127.0.0.1:"+strconv.Itoa(freePort(t)))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill() // no-op once it exited
		if t.Failed() {
			t.Logf("raftapi %s:\n%s", strings.Join(args, " "), out.String())
		}
	}()

	ready := notifications.next(t, readyTimeout)
	lines := strings.Split(ready, "\n")
	if lines[0] != "READY=1" || len(lines) < 2 || !strings.HasPrefix(lines[1], "STATUS=") {
		t.Fatalf("first notification %q, want READY=1 and a STATUS= line", ready)
	}
	t.Logf("notified: %q", ready)
	if code := probe(t, "https://"+api+"/readyz"); code != http.StatusOK {
		t.Errorf("READY=1 sent, but /readyz on %s (RAFTAPI_LISTEN) answers %d", api, code)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := notifications.next(t, 10*time.Second); got != "STOPPING=1" {
		t.Errorf("notification after SIGTERM %q, want STOPPING=1", got)
	}
	stop := systemdDuration(t, u.get("TimeoutStopSec"))
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v (systemd's Restart=on-failure would restart it)", err)
		}
	case <-time.After(stop):
		t.Errorf("still running %s (TimeoutStopSec) after SIGTERM", stop)
	}
}

// notifySocket is a unixgram socket standing in for systemd's.
type notifySocket struct{ conn *net.UnixConn }

func listenNotify(t *testing.T, path string) *notifySocket {
	t.Helper()
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &notifySocket{conn}
}

// next returns the next datagram, failing the test after timeout.
func (s *notifySocket) next(t *testing.T, timeout time.Duration) string {
	t.Helper()
	if err := s.conn.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _, err := s.conn.ReadFromUnix(buf)
	if err != nil {
		t.Fatalf("no notification within %s: %v", timeout, err)
	}
	return string(buf[:n])
}

func writeToken(t *testing.T, bin, path string) {
	t.Helper()
	tok, err := exec.Command(bin, "token", "generate").Output()
	if err != nil {
		t.Fatalf("raftapi token generate: %v", err)
	}
	if err := os.WriteFile(path, tok, 0o400); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// probe GETs url as the kubelet or a load balancer would: HTTPS, the
// certificate not verified, no credentials.
func probe(t *testing.T, url string) int {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
