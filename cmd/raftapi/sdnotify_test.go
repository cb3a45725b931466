package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listenNotify listens on a unixgram socket at name (a path, or "@name"
// for an abstract socket), as systemd does, and returns a function that
// receives one datagram.
func listenNotify(t *testing.T, name string) func() string {
	t.Helper()
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatalf("listen on %q: %v", name, err)
	}
	t.Cleanup(func() { conn.Close() })
	return func() string {
		t.Helper()
		if err := conn.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		n, _, err := conn.ReadFromUnix(buf)
		if err != nil {
			t.Fatalf("receive the notification: %v", err)
		}
		return string(buf[:n])
	}
}

func TestSdNotifySends(t *testing.T) {
	for _, tc := range []struct {
		name   string
		socket func(t *testing.T) string
	}{
		{"path", func(t *testing.T) string { return filepath.Join(t.TempDir(), "notify.sock") }},
		{"abstract", func(t *testing.T) string {
			return fmt.Sprintf("@raftapi-sdnotify-test-%d-%d", os.Getpid(), time.Now().UnixNano())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			socket := tc.socket(t)
			receive := listenNotify(t, socket)
			t.Setenv(notifySocketEnv, socket)
			for _, state := range []string{
				sdReady + "\n" + sdStatus("serving the Kubernetes API on https://127.0.0.1:6443"),
				sdStopping,
			} {
				sent, err := sdNotify(state)
				if err != nil || !sent {
					t.Fatalf("sdNotify(%q) = %v, %v; want true, nil", state, sent, err)
				}
				if got := receive(); got != state {
					t.Errorf("datagram = %q, want %q", got, state)
				}
			}
		})
	}
}

func TestSdNotifyUnset(t *testing.T) {
	t.Setenv(notifySocketEnv, "")
	os.Unsetenv(notifySocketEnv) // restored by t.Setenv's cleanup
	sent, err := sdNotify(sdReady)
	if sent || err != nil {
		t.Fatalf("sdNotify without %s = %v, %v; want false, nil", notifySocketEnv, sent, err)
	}
}

func TestSdNotifyErrors(t *testing.T) {
	for _, tc := range []struct {
		name, socket string
	}{
		{"missing path", filepath.Join(t.TempDir(), "absent.sock")},
		{"missing abstract socket", fmt.Sprintf("@raftapi-sdnotify-absent-%d-%d", os.Getpid(), time.Now().UnixNano())},
		{"relative path", "notify.sock"},
		{"vsock", "vsock:2:1234"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(notifySocketEnv, tc.socket)
			sent, err := sdNotify(sdReady)
			if sent || err == nil {
				t.Fatalf("sdNotify to %q = %v, %v; want false and an error", tc.socket, sent, err)
			}
			if !strings.HasPrefix(err.Error(), "sd_notify: ") {
				t.Errorf("error %q does not say it is sd_notify's", err)
			}
		})
	}
}

func TestSdNotifyStatusIsOneLine(t *testing.T) {
	if got, want := sdStatus("leader n1,\nterm 3\r\n"), "STATUS=leader n1, term 3"; got != want {
		t.Errorf("sdStatus = %q, want %q", got, want)
	}
}
