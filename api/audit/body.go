package audit

import (
	"errors"
	"io"
	"net/http"
	"sync"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// Bounds on the bodies kept for an event. A body larger than its bound is
// left out of the event, as kube's truncating backend would leave it out.
const (
	// maxObjectBody bounds a request or response body recorded as an
	// object (levels Request and RequestResponse).
	maxObjectBody = 10 << 20
	// maxStatusBody bounds a response kept only to read its Status.
	maxStatusBody = 64 << 10
)

// capture keeps the first limit bytes written to it; full reports
// whether it holds everything.
type capture struct {
	limit    int
	buf      []byte
	overflow bool
}

func (c *capture) add(b []byte) {
	if c.limit == 0 || c.overflow {
		return
	}
	if len(c.buf)+len(b) > c.limit {
		c.buf, c.overflow = nil, true
		return
	}
	c.buf = append(c.buf, b...)
}

// bytes returns the whole body, or nil when it was not (all) kept.
func (c *capture) bytes() []byte {
	if c.overflow {
		return nil
	}
	return c.buf
}

// bodyTee keeps a copy of a request body as the handler reads it, when
// the record wants it (decided when the policy is evaluated, which
// happens before any handler reads the body). A handler abandoned by a
// timeout may still read while the event is completed, hence the lock.
type bodyTee struct {
	io.ReadCloser
	rec *record

	mu      sync.Mutex
	capture capture
	eof     bool
	decided bool
}

// Read implements io.Reader.
func (t *bodyTee) Read(p []byte) (int, error) {
	t.mu.Lock()
	if !t.decided {
		t.decided = true
		t.capture.limit = t.rec.requestCaptureLimit()
	}
	t.mu.Unlock()
	n, err := t.ReadCloser.Read(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.capture.add(p[:n])
	if errors.Is(err, io.EOF) {
		t.eof = true
	}
	return n, err
}

// read returns the body if it was read to its end and kept whole.
func (t *bodyTee) read() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.eof {
		return nil
	}
	return t.capture.bytes()
}

// requestBody returns the request body the handler read to its end, nil
// if it read none or not all of it.
func (rec *record) requestBody() []byte {
	if rec.body == nil {
		return nil
	}
	return rec.body.read()
}

// requestCaptureLimit is how much of the request body to keep: the body
// is recorded from level Request on, and read at level Metadata for the
// name, uid and resourceVersion of an object created or updated (as
// kube's LogRequestObject fills the objectRef).
func (rec *record) requestCaptureLimit() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	switch {
	case !rec.initialized || rec.cfg.level == auditv1.LevelNone:
		return 0
	case rec.cfg.atLeast(auditv1.LevelRequest), rec.verb == "create", rec.verb == "update":
		return maxObjectBody
	}
	return 0
}

// captureLimit is how much of a response starting with code to keep: all
// of it at level RequestResponse (not for a long-running response, whose
// objects kube does not record), else enough to read the Status of an
// error or of a deletion; before the policy is evaluated, the Status of
// a refusal (a failed authentication).
func (rec *record) captureLimit(code int) int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	switch {
	case !rec.initialized:
		if code >= http.StatusBadRequest {
			return maxStatusBody
		}
		return 0
	case rec.cfg.level == auditv1.LevelNone:
		return 0
	case code >= http.StatusBadRequest:
		if rec.cfg.atLeast(auditv1.LevelRequestResponse) {
			return maxObjectBody
		}
		return maxStatusBody
	case rec.longRunning:
		return 0
	case rec.cfg.atLeast(auditv1.LevelRequestResponse):
		return maxObjectBody
	case isDelete(rec.verb):
		return maxStatusBody
	}
	return 0
}
