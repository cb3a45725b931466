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
	_, err := f.forward(ctx, "leader", []byte("cmd"))
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

// TestSendersStuckOnAFormerLeaderLeaveRoom: while every sender waits for
// a leader that is gone (cut off, its RPCs end at their deadline), a
// write for the new leader starts a sender of its own instead of waiting
// behind them; a write for the leader they wait for does not.
func TestSendersStuckOnAFormerLeaderLeaveRoom(t *testing.T) {
	f := busyForwarder()
	for range forwardSenders {
		f.waitFor("old", 1)
	}
	if f.admit(&forwardCall{}, "old") {
		t.Fatal("a write for the leader every sender waits for started a sender")
	}
	if !f.admit(&forwardCall{}, "new") {
		t.Fatal("a write for a new leader waits behind senders stuck on the old one")
	}
	if f.senders != forwardSenders+1 {
		t.Fatalf("%d senders counted, want %d", f.senders, forwardSenders+1)
	}
	for range forwardSenders {
		f.waitFor("old", -1)
	}
	if len(f.waiting) != 0 {
		t.Fatalf("after every answer: waiting %v", f.waiting)
	}
	if f.admit(&forwardCall{}, "new") {
		t.Fatalf("a sender started with %d running for the leader", f.senders)
	}
}

func calls(n int) []*forwardCall {
	batch := make([]*forwardCall, n)
	for i := range batch {
		batch[i] = &forwardCall{done: make(chan struct{})}
	}
	return batch
}

func errCode(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// TestSettleGivesEachCallItsOutcome: each command of a batch gets its own
// part of the leader's answer (one refused as not the leader fails alone,
// retryable); a failed RPC or an answer of the wrong length leaves every
// command unavailable (never sent) or unknown (sent).
func TestSettleGivesEachCallItsOutcome(t *testing.T) {
	batch := calls(3)
	settle(batch, manyReply{Replies: []rpcReply{
		{Rev: 5},
		{Err: &wireError{Code: ErrCodeUnavailable, NotLeader: true}},
		{Err: &wireError{Code: ErrCodeAlreadyExists, Key: "k"}},
	}}, true, nil)
	if c := batch[0]; c.err != nil || c.res.Rev != 5 {
		t.Fatalf("first: %v %+v, want revision 5", c.err, c.res)
	}
	if c := batch[1]; !errors.Is(c.err, errNotLeader) {
		t.Fatalf("second: %v, want not the leader", c.err)
	}
	if c := batch[2]; c.err != nil || c.res.Err == nil || c.res.Err.Key != "k" {
		t.Fatalf("third: %v %+v, want a rejection of k", c.err, c.res)
	}

	for _, tc := range []struct {
		name  string
		reply manyReply
		sent  bool
		err   error
		want  ErrorCode
	}{
		{"not sent", manyReply{}, false, errors.New("dial"), ErrCodeUnavailable},
		{"sent, no answer", manyReply{}, true, errors.New("reset"), ErrCodeUnknownOutcome},
		{"short answer", manyReply{Replies: []rpcReply{{Rev: 1}}}, true, nil, ErrCodeUnknownOutcome},
	} {
		batch := calls(2)
		settle(batch, tc.reply, tc.sent, tc.err)
		for i, c := range batch {
			if got := errCode(c.err); got != tc.want {
				t.Fatalf("%s: call %d: %v, want code %v", tc.name, i, c.err, tc.want)
			}
		}
	}

	batch = calls(2)
	settle(batch, manyReply{Err: &wireError{Code: ErrCodeInvalid, Msg: "bad frame"}}, true, nil)
	if batch[0].res == nil || batch[1].res == nil || batch[0].res == batch[1].res || batch[0].res.Err == nil {
		t.Fatalf("a refused request: %+v and %+v, want a rejection each", batch[0].res, batch[1].res)
	}
}
