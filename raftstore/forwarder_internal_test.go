package raftstore

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// busyForwarder is a forwarder whose senders are all taken, so that what
// it is given stays queued.
func busyForwarder() *forwarder {
	f := newForwarder(&Store{cfg: Config{ApplyTimeout: time.Second}})
	f.senders = forwardSenders
	return f
}

func queue(f *forwarder, sizes ...int) {
	for _, n := range sizes {
		f.queue = append(f.queue, &forwardCall{data: make([]byte, n), done: make(chan struct{})})
	}
}

// TestAbandonedForwardIsNeverSent: a caller whose deadline passes while
// its command waits in the queue learns that it was not sent (safe to
// retry elsewhere), and no sender takes the command afterwards.
func TestAbandonedForwardIsNeverSent(t *testing.T) {
	f := busyForwarder()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := f.forward(ctx, []byte("cmd"))
	var e *Error
	if !errors.As(err, &e) || e.Code != ErrCodeUnavailable || !errors.Is(err, errNotLeader) {
		t.Fatalf("abandoned forward: %v, want Unavailable, not the leader", err)
	}
	if b := f.take(); b != nil {
		t.Fatalf("a sender took %d abandoned commands", len(b))
	}
	if f.senders != forwardSenders-1 || len(f.queue) != 0 {
		t.Fatalf("after the empty take: %d senders, %d queued; want %d and 0", f.senders, len(f.queue), forwardSenders-1)
	}
}

// TestForwardBatchLimits: a batch holds at most forwardMaxCalls commands
// and forwardMaxBytes of them, except a single larger one, which goes
// alone; the rest stay queued in order.
func TestForwardBatchLimits(t *testing.T) {
	f := busyForwarder()
	queue(f, make([]int, forwardMaxCalls+10)...)
	if b := f.take(); len(b) != forwardMaxCalls {
		t.Fatalf("first batch of %d commands, want %d", len(b), forwardMaxCalls)
	}
	if b := f.take(); len(b) != 10 {
		t.Fatalf("second batch of %d commands, want 10", len(b))
	}
	queue(f, forwardMaxBytes/2, forwardMaxBytes/2, 1, forwardMaxBytes+1, 7)
	for i, want := range [][]int{{forwardMaxBytes / 2, forwardMaxBytes / 2}, {1}, {forwardMaxBytes + 1}, {7}} {
		b := f.take()
		var got []int
		for _, c := range b {
			got = append(got, len(c.data))
		}
		if len(got) != len(want) || (len(got) > 0 && got[0] != want[0]) {
			t.Fatalf("batch %d: sizes %v, want %v", i, got, want)
		}
	}
	if b := f.take(); b != nil {
		t.Fatalf("a batch of %d from an empty queue", len(b))
	}
}

// TestCommandFraming: what encodeCommands frames splitCommands returns
// as it was, empty commands included; a truncated or overlong length is
// an error, never a panic.
func TestCommandFraming(t *testing.T) {
	cmds := [][]byte{[]byte("a"), {}, bytes.Repeat([]byte("x"), 300), []byte(`{"type":1}`)}
	var batch []*forwardCall
	for _, c := range cmds {
		batch = append(batch, &forwardCall{data: c})
	}
	body := encodeCommands(batch)
	got, err := splitCommands(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cmds) {
		t.Fatalf("%d commands back, want %d", len(got), len(cmds))
	}
	for i := range cmds {
		if !bytes.Equal(got[i], cmds[i]) {
			t.Fatalf("command %d: %q, want %q", i, got[i], cmds[i])
		}
	}
	for _, bad := range [][]byte{body[:len(body)-1], {0x05, 'a'}, {0x80}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}} {
		if _, err := splitCommands(bad); err == nil {
			t.Fatalf("splitCommands(%x) took a bad frame", bad)
		}
	}
}
