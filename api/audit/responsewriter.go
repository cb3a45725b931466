package audit

import (
	"net/http"
	"time"
)

// responseWriter passes a response through while noting, for the
// request's record, when it starts and with which code, and keeping a
// copy of as much of the body as the event may need (see
// record.captureLimit). Only the handler's goroutine writes.
type responseWriter struct {
	http.ResponseWriter
	rec *record

	started   bool
	code      int
	startedAt time.Time
	capture   capture
}

// start notes the status line once, the first time the response is
// written or flushed.
func (w *responseWriter) start(code int) {
	if w.started {
		return
	}
	w.started, w.code, w.startedAt = true, code, time.Now()
	w.capture.limit = w.rec.captureLimit(code)
	w.rec.responseStarted(code)
}

// WriteHeader implements http.ResponseWriter.
func (w *responseWriter) WriteHeader(code int) {
	if code >= 200 || code == http.StatusSwitchingProtocols {
		w.start(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *responseWriter) Write(b []byte) (int, error) {
	w.start(http.StatusOK)
	w.capture.add(b)
	return w.ResponseWriter.Write(b)
}

// Flush sends what was written so far, for streaming handlers (watch).
func (w *responseWriter) Flush() {
	w.start(http.StatusOK)
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
