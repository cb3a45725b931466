package cluster

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// recordsHandler is a slog.Handler that passes every record on to a
// channel.
type recordsHandler chan slog.Record

func (h recordsHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordsHandler) Handle(_ context.Context, r slog.Record) error {
	h <- r.Clone()
	return nil
}
func (h recordsHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordsHandler) WithGroup(string) slog.Handler      { return h }

// attrs returns a record's attributes as strings.
func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	return m
}

// nextRecord returns the next record logged, failing the test after a
// generous deadline.
func nextRecord(t *testing.T, records <-chan slog.Record) slog.Record {
	t.Helper()
	select {
	case r := <-records:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("nothing logged in 30 s")
		return slog.Record{}
	}
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
	records := make(recordsHandler, 4)
	p := &stopPhases{log: slog.New(records), slow: time.Millisecond, stuck: 10 * time.Millisecond}
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- p.run("the test's loop", func() error { return blockedInStopPhase(release) }) }()

	stuck := nextRecord(t, records)
	a := attrs(stuck)
	if stuck.Message != "stopping is stuck" || a["waiting-for"] != "the test's loop" {
		t.Fatalf("logged %q %v while the phase runs, want it stuck", stuck.Message, a)
	}
	if !strings.Contains(a["goroutines"], "cluster.blockedInStopPhase") {
		t.Fatalf("the stacks logged do not show the blocked phase:\n%s", a["goroutines"])
	}
	close(release)
	if err := <-done; err == nil || err.Error() != "released" {
		t.Fatalf("run returned %v, want the phase's error", err)
	}
	ended := nextRecord(t, records)
	if ended.Message != "stopping took long" || attrs(ended)["waited-for"] != "the test's loop" {
		t.Fatalf("logged %q %v at the phase's end, want how long it took", ended.Message, attrs(ended))
	}
}

// TestStopPhaseQuietWhenFast: a phase that ends in time logs nothing.
func TestStopPhaseQuietWhenFast(t *testing.T) {
	records := make(recordsHandler, 4)
	p := newStopPhases(slog.New(records))
	if err := p.run("fast", func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if len(records) != 0 {
		r := <-records
		t.Fatalf("a fast phase logged %q", r.Message)
	}
}
