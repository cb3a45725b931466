package api

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A controller that panics is logged with its stack and run again; the
// process lives on, and the supervisor ends with ctx.
func TestSuperviseRestartsAfterPanic(t *testing.T) {
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runs atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		supervise(ctx, log, "flaky", func(ctx context.Context) {
			if runs.Add(1) == 1 {
				panic("bad object")
			}
			<-ctx.Done()
		})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for runs.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the controller ran %d times, want a restart after its panic", runs.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := buf.String()
	for _, want := range []string{"controller panicked", "controller=flaky", "bad object", "supervise_test.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("supervise did not return once its context ended")
	}
}

// A controller that returns normally is not run again.
func TestSuperviseReturnIsFinal(t *testing.T) {
	var runs int
	supervise(context.Background(), slog.New(slog.DiscardHandler), "once", func(context.Context) { runs++ })
	if runs != 1 {
		t.Errorf("ran %d times, want 1", runs)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
