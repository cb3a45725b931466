package cluster

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for a logger and a test to share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// blockedInStopPhase stands for a loop that does not see the stop; its
// name must show in the stacks logged while it blocks.
func blockedInStopPhase(release <-chan struct{}) error {
	<-release
	return errors.New("released")
}

// TestStopPhaseStuckLogsStacks: a phase of Stop that does not end logs,
// while it still runs, every goroutine's stack, the blocked one's included;
// when it ends, how long it took; its error is the phase's.
func TestStopPhaseStuckLogsStacks(t *testing.T) {
	var out lockedBuffer
	p := &stopPhases{log: slog.New(slog.NewTextHandler(&out, nil)), slow: time.Millisecond, stuck: 10 * time.Millisecond}
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- p.run("the test's loop", func() error { return blockedInStopPhase(release) }) }()

	pollUntil(t, "stuck phase logged", func() (bool, string) {
		s := out.String()
		return strings.Contains(s, `msg="stopping is stuck" waiting-for="the test's loop"`) &&
			strings.Contains(s, "cluster.blockedInStopPhase"), s
	})
	if strings.Contains(out.String(), "stopping took long") {
		t.Fatalf("a phase still running was logged as ended:\n%s", out.String())
	}
	close(release)
	if err := <-done; err == nil || err.Error() != "released" {
		t.Fatalf("run returned %v, want the phase's error", err)
	}
	if s := out.String(); !strings.Contains(s, `msg="stopping took long" waited-for="the test's loop"`) {
		t.Fatalf("the phase's end was not logged:\n%s", s)
	}
}

// TestStopPhaseQuietWhenFast: a phase that ends in time logs nothing.
func TestStopPhaseQuietWhenFast(t *testing.T) {
	var out lockedBuffer
	p := newStopPhases(slog.New(slog.NewTextHandler(&out, nil)))
	if err := p.run("fast", func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); s != "" {
		t.Fatalf("a fast phase logged %q", s)
	}
}
