package cluster

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// timeoutMessage is kube-apiserver's, after its "Timeout: " prefix.
const timeoutMessage = "request did not complete within the allotted timeout"

// timeoutWriter is the response writer of a handler running under
// withRequestTimeout, as kube-apiserver's timeout writer: the handler's
// headers are its own until it writes, and once the deadline has passed
// its writes are refused (http.ErrHandlerTimeout) while the serving
// goroutine answers for it (timeout).
type timeoutWriter struct {
	w        http.ResponseWriter
	deadline time.Time
	// header is the handler's header map, copied to w's when it writes.
	header http.Header

	mu          sync.Mutex
	wroteHeader bool // the handler's status line went out
	refused     bool // a write came after the deadline
	timedOut    bool // the serving goroutine has answered
}

func newTimeoutWriter(w http.ResponseWriter, deadline time.Time) *timeoutWriter {
	return &timeoutWriter{w: w, deadline: deadline, header: w.Header().Clone()}
}

// Header returns the handler's header map.
func (tw *timeoutWriter) Header() http.Header {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return http.Header{}
	}
	return tw.header
}

// WriteHeader writes the status line and the handler's headers, unless
// the deadline has passed.
func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.late() || tw.wroteHeader {
		return
	}
	tw.writeHeaderLocked(code)
}

// Write writes body bytes, or refuses them once the deadline has passed.
func (tw *timeoutWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.late() {
		return 0, http.ErrHandlerTimeout
	}
	if !tw.wroteHeader {
		tw.writeHeaderLocked(http.StatusOK)
	}
	return tw.w.Write(p)
}

// Flush implements http.Flusher.
func (tw *timeoutWriter) Flush() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.late() {
		return
	}
	if !tw.wroteHeader {
		tw.writeHeaderLocked(http.StatusOK)
	}
	if f, ok := tw.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (tw *timeoutWriter) Unwrap() http.ResponseWriter { return tw.w }

func (tw *timeoutWriter) writeHeaderLocked(code int) {
	dst := tw.w.Header()
	for k, v := range tw.header {
		dst[k] = v
	}
	tw.wroteHeader = true
	tw.w.WriteHeader(code)
}

// late reports, and remembers, a write that comes too late: after the
// serving goroutine answered, or past the deadline (which may come a
// moment before the context says so: the handler's body read fails at
// the deadline too).
func (tw *timeoutWriter) late() bool {
	if tw.timedOut || !time.Now().Before(tw.deadline) {
		tw.refused = true
		return true
	}
	return false
}

// finish completes the response of a handler that returned: if it was
// refused a write, or wrote nothing and returned past the deadline, it is
// answered for as if the deadline had found it running.
func (tw *timeoutWriter) finish() {
	tw.mu.Lock()
	late := tw.refused || (!tw.wroteHeader && !time.Now().Before(tw.deadline))
	tw.mu.Unlock()
	if late {
		tw.timeout()
	}
}

// timeout answers for a handler past its deadline: kube-apiserver's 504
// Status when nothing was written, else the response is cut short
// (http.ErrAbortHandler: the server closes the HTTP/1 connection or
// resets the HTTP/2 stream). The body is kube's bytes: the Status
// without kind or apiVersion, with no Content-Type, so that clients
// report it as kube-apiserver's ("the server was unable to return a
// response in the time allotted, but may still be processing the
// request").
func (tw *timeoutWriter) timeout() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.timedOut = true
	if tw.wroteHeader {
		panic(http.ErrAbortHandler)
	}
	tw.w.WriteHeader(http.StatusGatewayTimeout)
	_ = json.NewEncoder(tw.w).Encode(&apierrors.NewTimeoutError(timeoutMessage, 0).ErrStatus)
}
