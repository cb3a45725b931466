package raftstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/fsm"
)

// A follower forwards the writes it serves to the leader. One peer RPC per
// write (an HTTP request and its answer, each a TLS record and a system
// call, on both sides) took 12 to 15% of three nodes' CPU under 64 writing
// clients (raftstore/DESIGN.md). The forwarder sends the commands that
// wait at the same time in one RPC (rpcApplyMany), with at most
// forwardSenders RPCs in flight to the current leader (see enqueue): a
// lone write goes at once, as before, and
// under load the writes that arrive while the RPCs are in flight leave
// together as soon as one comes back, as etcd's followers batch their
// proposals to the leader.
//
// Every command keeps its own outcome. The leader proposes each one on its
// own (raft may commit them in one batch or several), answers each as it
// answers rpcApply, and a command whose answer says it was not appended
// (not the leader) is retried by its caller alone. A command whose caller
// gives up before its RPC is sent is dropped from the queue and was never
// proposed; after the RPC is sent its outcome is unknown to that caller, as
// for a single forward.
const (
	forwardSenders  = 4       // RPCs in flight at once
	forwardMaxCalls = 256     // commands in one RPC
	forwardMaxBytes = 4 << 20 // bytes of commands in one RPC, unless one alone is larger
)

// forwardCall states: queued until a sender takes it into an RPC, or
// abandoned by a caller whose context ended first.
const (
	callQueued int32 = iota
	callTaken
	callAbandoned
)

// forwardCall is one command waiting for the leader's answer.
type forwardCall struct {
	data     []byte
	deadline time.Time
	state    atomic.Int32
	done     chan struct{}
	res      *fsm.Result
	err      error
}

func (c *forwardCall) finish(res *fsm.Result, err error) {
	c.res, c.err = res, err
	close(c.done)
}

// forwarder batches a follower's forwarded commands; see above.
type forwarder struct {
	s      *Store
	ctx    context.Context // ends when the store closes
	cancel context.CancelFunc

	mu    sync.Mutex
	queue []*forwardCall
	// senders is how many sender goroutines run; waiting[addr] how many
	// of them wait for an answer from addr.
	senders int
	waiting map[string]int

	// alone is a leader that does not serve rpcApplyMany (an earlier
	// release): commands go to it one RPC each while it leads.
	alone atomic.Pointer[aloneLeader]
	// rpcs counts the rpcApplyMany requests sent.
	rpcs atomic.Uint64
}

func newForwarder(s *Store) *forwarder {
	ctx, cancel := context.WithCancel(context.Background())
	return &forwarder{s: s, ctx: ctx, cancel: cancel}
}

// stop ends the RPCs in flight; their callers learn an unknown outcome.
func (f *forwarder) stop() { f.cancel() }

// aloneLeader is the leader at addr during the raft term this node was in
// when it refused rpcApplyMany. The term is read from raft itself, not
// from the leader observations, which arrive late: a refusal counted
// against a stale epoch would be forgotten as soon as the observation
// caught up.
type aloneLeader struct {
	addr string
	term uint64
}

// together reports whether commands for the leader at addr go in batches.
// A leader found without rpcApplyMany is asked again once the raft term
// has moved on, since it may have been upgraded and elected again.
func (f *forwarder) together(addr string) bool {
	a := f.alone.Load()
	return a == nil || a.addr != addr || a.term != f.s.raft.CurrentTerm()
}

// forward queues data for the leader, believed to be at addr, and waits
// for its outcome or the end of ctx, which must carry a deadline
// (propose's).
func (f *forwarder) forward(ctx context.Context, addr string, data []byte) (*fsm.Result, error) {
	c := &forwardCall{data: data, done: make(chan struct{})}
	c.deadline, _ = ctx.Deadline()
	if c.deadline.IsZero() {
		c.deadline = time.Now().Add(f.s.cfg.ApplyTimeout)
	}
	f.enqueue(c, addr)
	select {
	case <-c.done:
		return c.res, c.err
	case <-ctx.Done():
	}
	if c.state.CompareAndSwap(callQueued, callAbandoned) {
		return nil, &Error{Code: ErrCodeUnavailable, Msg: "not sent to the leader before the deadline", Err: errNotLeader}
	}
	select {
	case <-c.done:
		return c.res, c.err
	default:
		return nil, &Error{Code: ErrCodeUnknownOutcome, Msg: "lost the leader's answer", Err: ctx.Err()}
	}
}

// enqueue adds c to the queue and starts a sender if fewer than
// forwardSenders run that are not waiting for another node than addr, the
// leader as c's caller knows it. Senders stuck on a former leader (one
// cut off, whose RPCs end only at their deadline) leave room for those of
// the new one.
func (f *forwarder) enqueue(c *forwardCall, addr string) {
	if f.admit(c, addr) {
		go f.run()
	}
}

// admit queues c and reports whether a sender is to start for it, which
// it then counts.
func (f *forwarder) admit(c *forwardCall, addr string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queue = append(f.queue, c)
	elsewhere := 0
	for a, n := range f.waiting {
		if a != addr {
			elsewhere += n
		}
	}
	if f.senders-elsewhere >= forwardSenders {
		return false
	}
	f.senders++
	return true
}

// run sends batches until the queue is empty.
func (f *forwarder) run() {
	for {
		batch := f.take()
		if batch == nil {
			return
		}
		f.send(batch)
	}
}

// take removes the next batch from the queue, skipping abandoned calls.
// On an empty queue it retires the sender and returns nil.
func (f *forwarder) take() []*forwardCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var batch []*forwardCall
	n, size := 0, 0
	for ; n < len(f.queue) && len(batch) < forwardMaxCalls; n++ {
		c := f.queue[n]
		if len(batch) > 0 && size+len(c.data) > forwardMaxBytes {
			break
		}
		if c.state.CompareAndSwap(callQueued, callTaken) {
			batch = append(batch, c)
			size += len(c.data)
		}
	}
	left := copy(f.queue, f.queue[n:])
	clear(f.queue[left:])
	f.queue = f.queue[:left]
	if len(batch) == 0 {
		f.senders--
		return nil
	}
	return batch
}

// send forwards batch to the current leader and finishes every call in it.
func (f *forwarder) send(batch []*forwardCall) {
	leader, _ := f.s.raft.LeaderWithID()
	switch addr := string(leader); {
	case addr == "":
		finishAll(batch, nil, errNoLeader())
	case !f.together(addr):
		f.sendAlone(batch, addr)
	default:
		f.sendTogether(batch, addr)
	}
}

// sendTogether forwards batch to the leader at addr in one rpcApplyMany.
func (f *forwarder) sendTogether(batch []*forwardCall, addr string) {
	ctx, cancel := context.WithDeadline(f.ctx, latestDeadline(batch))
	defer cancel()
	var reply manyReply
	f.rpcs.Add(1)
	f.waitFor(addr, 1)
	sent, err := f.s.peers.callInto(ctx, addr, rpcApplyMany, encodeCommands(batch), &reply)
	f.waitFor(addr, -1)
	if errors.Is(err, errNoRoute) {
		f.alone.Store(&aloneLeader{addr: addr, term: f.s.raft.CurrentTerm()})
		f.sendAlone(batch, addr)
		return
	}
	settle(batch, reply, sent, err)
}

// settle finishes every call of batch with its part of the leader's
// answer, or with what the RPC's failure means for all of them.
func settle(batch []*forwardCall, reply manyReply, sent bool, err error) {
	switch {
	case err != nil:
		finishAll(batch, nil, forwardFailed(sent, err))
	case reply.Err != nil:
		for _, c := range batch {
			c.finish(fromReply(rpcReply{Err: reply.Err}))
		}
	case len(reply.Replies) != len(batch):
		finishAll(batch, nil, &Error{Code: ErrCodeUnknownOutcome,
			Msg: fmt.Sprintf("the leader answered %d of %d forwarded writes", len(reply.Replies), len(batch))})
	default:
		for i, c := range batch {
			c.finish(fromReply(reply.Replies[i]))
		}
	}
}

// waitFor counts a sender waiting for addr (n = 1) or done waiting (-1).
func (f *forwarder) waitFor(addr string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.waiting == nil {
		f.waiting = map[string]int{}
	}
	f.waiting[addr] += n
	if f.waiting[addr] == 0 {
		delete(f.waiting, addr)
	}
}

// sendAlone forwards each call of batch in an RPC of its own, for a leader
// that does not serve rpcApplyMany.
func (f *forwarder) sendAlone(batch []*forwardCall, addr string) {
	f.waitFor(addr, 1)
	defer f.waitFor(addr, -1)
	var wg sync.WaitGroup
	for _, c := range batch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithDeadline(f.ctx, c.deadline)
			defer cancel()
			c.finish(f.s.forwardAlone(ctx, addr, c.data))
		}()
	}
	wg.Wait()
}

func finishAll(batch []*forwardCall, res *fsm.Result, err error) {
	for _, c := range batch {
		c.finish(res, err)
	}
}

func latestDeadline(batch []*forwardCall) time.Time {
	var d time.Time
	for _, c := range batch {
		if c.deadline.After(d) {
			d = c.deadline
		}
	}
	return d
}
