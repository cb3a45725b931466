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
	w, f := burstWithinInterval(t)
	defer f.stop()
	if w.flushes != 1 || f.due == nil {
		t.Fatalf("burst: %d flushes, due armed %v; want 1 flush and one due", w.flushes, f.due != nil)
	}
	start := time.Now()
	select {
	case <-f.due:
	case <-time.After(5 * time.Second):
		t.Fatal("the due flush never came")
	}
	if waited := time.Since(start); waited > minFlushInterval+time.Second {
		t.Errorf("the due flush came after %v", waited)
	}
	if !f.flush() || w.flushes != 2 || f.due != nil {
		t.Fatalf("due flush: %d flushes, due armed %v; want 2 and none", w.flushes, f.due != nil)
	}
}

// burstWithinInterval writes one event and then ten more, and returns
// the flusher once the eleven fitted in minFlushInterval. On a busy
// machine the test's goroutine can be descheduled for longer than that
// between two writes, when a second flush is right; such an attempt is
// tried again rather than judged.
func burstWithinInterval(t *testing.T) (*flushCounter, *flusher) {
	t.Helper()
	for range 100 {
		w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
		f := &flusher{st: &stream{w: w, deadline: newDeadline(http.ResponseWriter(w), time.Second)}}
		start := time.Now()
		if !f.written() || w.flushes != 1 || f.due != nil {
			t.Fatalf("first event: %d flushes, due armed %v; want it flushed at once", w.flushes, f.due != nil)
		}
		for range 10 {
			if !f.written() {
				t.Fatal("written failed")
			}
		}
		if time.Since(start) < minFlushInterval {
			return w, f
		}
		f.stop()
	}
	t.Skip("no burst of eleven writes fitted in the flush interval in 100 attempts")
	return nil, nil
}

// The more watch streams a server has open, the longer a busy stream
// gathers events before a flush, between the minimum and the maximum.
func TestWatchFlushIntervalGrowsWithStreams(t *testing.T) {
	var nilStreams *WatchStreams
	if d := nilStreams.flushInterval(); d != minFlushInterval {
		t.Errorf("no counter: %v, want %v", d, minFlushInterval)
	}
	var ws WatchStreams
	var closers []func()
	for n, want := range map[int]time.Duration{1: minFlushInterval, streamsPerStep: minFlushInterval,
		2 * streamsPerStep: 2 * minFlushInterval, 100 * streamsPerStep: maxFlushInterval} {
		for len(closers) < n {
			closers = append(closers, ws.opened())
		}
		for len(closers) > n {
			closers[len(closers)-1]()
			closers = closers[:len(closers)-1]
		}
		if d := ws.flushInterval(); d != want {
			t.Errorf("%d streams: %v, want %v", n, d, want)
		}
	}
	for _, c := range closers {
		c()
	}
	if d := ws.flushInterval(); d != minFlushInterval || ws.open.Load() != 0 {
		t.Errorf("all closed: %v with %d open, want %v with none", d, ws.open.Load(), minFlushInterval)
	}
}
