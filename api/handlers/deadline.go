package handlers

import (
	"net/http"
	"time"
)

// DefaultWatchWriteTimeout is how long one watch event (its write and
// flush) may take to reach the client before the watch is dropped.
const DefaultWatchWriteTimeout = 30 * time.Second

// deadline bounds the writes of a long-running response with the
// connection's (or HTTP/2 stream's) write deadline: a client that stops
// reading fills its socket buffers, the blocked write fails once the
// deadline passes, and the handler returns, which closes the connection
// (HTTP/1) or resets the stream (HTTP/2). The deadline is armed only
// while a write is under way: HTTP/2 resets a stream when its deadline
// passes even if nothing is being written, and a watch may stay idle for
// longer than the timeout.
type deadline struct {
	rc      *http.ResponseController
	timeout time.Duration
}

func newDeadline(w http.ResponseWriter, timeout time.Duration) deadline {
	return deadline{rc: http.NewResponseController(w), timeout: timeout}
}

// arm gives the writes that follow timeout to finish. A writer without
// deadlines (http.ErrNotSupported) is left unbounded.
func (d deadline) arm() { _ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout)) }

// disarm lifts the deadline once the writes are done.
func (d deadline) disarm() { _ = d.rc.SetWriteDeadline(time.Time{}) }
