package handlers

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// flushCounter is a ResponseWriter that counts its flushes.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (w *flushCounter) Flush() { w.flushes++ }

// An event after a quiet spell is flushed at once; events that follow
// within flushInterval wait for one flush together when it is up.
func TestWatchFlushCoalescing(t *testing.T) {
	w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	f := flusher{st: &stream{w: w, deadline: newDeadline(http.ResponseWriter(w), time.Second)}}
	defer f.stop()

	if !f.written() || w.flushes != 1 || f.due != nil {
		t.Fatalf("first event: %d flushes, due armed %v; want it flushed at once", w.flushes, f.due != nil)
	}
	for range 10 {
		if !f.written() {
			t.Fatal("written failed")
		}
	}
	if w.flushes != 1 || f.due == nil {
		t.Fatalf("burst: %d flushes, due armed %v; want 1 flush and one due", w.flushes, f.due != nil)
	}
	start := time.Now()
	select {
	case <-f.due:
	case <-time.After(5 * time.Second):
		t.Fatal("the due flush never came")
	}
	if waited := time.Since(start); waited > flushInterval+time.Second {
		t.Errorf("the due flush came after %v", waited)
	}
	if !f.flush() || w.flushes != 2 || f.due != nil {
		t.Fatalf("due flush: %d flushes, due armed %v; want 2 and none", w.flushes, f.due != nil)
	}
}
