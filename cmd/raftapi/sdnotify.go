package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

// The sd_notify(3) protocol, without cgo or libsystemd: a service started
// by systemd with Type=notify tells it when it is ready, when it is
// stopping, and a one-line status for systemctl status, by sending
// newline-separated VAR=VALUE assignments in one datagram to the unix socket
// named by $NOTIFY_SOCKET.
//
// The contract with serve: once the node answers /readyz (it knows a
// leader, has caught up, and the system namespaces exist) serve sends
// sdReady together with sdStatus("..."), once; on SIGTERM or SIGINT it
// sends sdStopping before leaving the cluster. systemd holds
// "systemctl start" (and units ordered After= raftapi) until READY=1
// arrives, and fails the start after TimeoutStartSec without it. Outside
// systemd (no $NOTIFY_SOCKET) every call is a no-op, so serve calls
// sdNotify unconditionally and only logs an error: a failed notification
// never stops the node.

// Messages for sdNotify. Several may be sent in one datagram, joined by
// "\n", e.g. sdReady + "\n" + sdStatus("serving").
const (
	// sdReady tells systemd that start-up is finished: for raftapi, the
	// node answers /readyz.
	sdReady = "READY=1"
	// sdStopping tells systemd that the service is shutting down.
	sdStopping = "STOPPING=1"
)

// notifySocketEnv names the environment variable systemd sets to the
// address of its notification socket.
const notifySocketEnv = "NOTIFY_SOCKET"

// sdNotifyTimeout bounds the send: a datagram socket whose reader is stuck
// must not stall the server.
const sdNotifyTimeout = time.Second

// sdStatus returns a STATUS= message: free text that systemctl status
// shows. The protocol is line-based, so line breaks become spaces.
func sdStatus(text string) string {
	return "STATUS=" + strings.Join(strings.Fields(text), " ")
}

// sdNotify sends state (one or more "VAR=VALUE" lines) as one datagram to
// the socket named by $NOTIFY_SOCKET. It returns (false, nil) when
// NOTIFY_SOCKET is unset or empty (not started by systemd, or by a unit
// that is not Type=notify), (true, nil) once the datagram is sent, and
// (false, err) when the variable names no socket that accepts it.
//
// NOTIFY_SOCKET is an absolute file-system path or, with a leading '@', a
// Linux abstract socket name. Other forms (systemd's vsock: addresses) are
// an error. The variable is left set, so that every later call reaches the
// same socket; sdNotify is safe for concurrent use.
func sdNotify(state string) (sent bool, err error) {
	name := os.Getenv(notifySocketEnv)
	if name == "" {
		return false, nil
	}
	addr, err := notifyAddr(name)
	if err != nil {
		return false, err
	}
	conn, err := net.DialUnix("unixgram", nil, addr)
	if err != nil {
		return false, fmt.Errorf("sd_notify: %w", err)
	}
	defer conn.Close()
	if err := conn.SetWriteDeadline(time.Now().Add(sdNotifyTimeout)); err != nil {
		return false, fmt.Errorf("sd_notify: %w", err)
	}
	n, err := conn.Write([]byte(state))
	if err != nil {
		return false, fmt.Errorf("sd_notify: send to %s: %w", name, err)
	}
	if n != len(state) {
		return false, fmt.Errorf("sd_notify: send to %s: %d of %d bytes sent", name, n, len(state))
	}
	return true, nil
}

// notifyAddr turns the value of NOTIFY_SOCKET into a unixgram address: a
// leading '@' names an abstract socket, whose first byte is NUL.
func notifyAddr(name string) (*net.UnixAddr, error) {
	switch {
	case strings.HasPrefix(name, "@"):
		return &net.UnixAddr{Name: "\x00" + name[1:], Net: "unixgram"}, nil
	case strings.HasPrefix(name, "/"):
		return &net.UnixAddr{Name: name, Net: "unixgram"}, nil
	}
	return nil, errors.New("sd_notify: " + notifySocketEnv + "=" + name + " is neither an absolute path nor an abstract socket (@name)")
}
