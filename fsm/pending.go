package fsm

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/raft"
	bolt "go.etcd.io/bbolt"
)

// Batches applied but not committed yet.
//
// A bbolt commit rewrites every B-tree page its transaction touched, the
// branches above them and the meta page, one pwrite each; entries that
// share pages share their writes. Under load raft hands the FSM a few
// entries at a time, and committing every batch spends much of the apply
// path's CPU on those page writes. With a commit delay the FSM commits at
// most once per delay: a batch that comes when the last commit is older
// than the delay is committed at once (an idle FSM adds no latency);
// otherwise the write transaction stays open across batches and is
// committed when
//
//   - the delay has passed since the last commit (the commit timer),
//   - it holds maxPending command entries,
//   - a reader needs an entry it holds (Need), or
//   - Snapshot, Restore or Close needs the whole state in the file.
//
// A proposer still gets its result when its entry is applied; what waits
// for the commit is the entry's visibility: Applied, View, the listener's
// events. Every read that must see an entry (a Most Recent read, a read
// not older than a revision) calls Need first, so it never waits for the
// timer, and a read of keys a pending batch changed can commit it first
// (NeedPrefix), so a node's reads show the writes it has answered. The
// delay bounds how far a watch or another node's write trails the log.
// Durability is unchanged: the state file was never the durable record
// (see durability.go), and a process killed with batches pending replays
// them from the raft log as it replays unsynced ones.

// maxPending bounds the command entries one commit holds: the dirty pages
// of a transaction stay in memory until it commits.
const maxPending = 1024

// pending is the open write transaction and what it holds.
type pending struct {
	tx       *bolt.Tx
	t        *txn
	applied  uint64  // index of the last entry applied in it
	events   []Event // its changes, in revision order
	commands int     // command entries applied in it
	timerSet bool    // a commit timer runs for it
}

// Option configures an FSM at Open.
type Option func(*FSM)

// WithCommitDelay makes the FSM commit at most once per d, keeping the
// batches applied meanwhile in one open transaction (see pending.go).
// Zero, the default, commits every batch as it is applied.
func WithCommitDelay(d time.Duration) Option {
	return func(f *FSM) { f.commitDelay = d }
}

// ApplyBatch applies committed entries in the open write transaction,
// beginning one if none is open, and commits it when due (see pending.go;
// without a commit delay, always). Entries at or below the applied index
// are skipped (they were applied before a restart). For each LogCommand
// entry the result is a *Result; entries of unknown command type are
// skipped with a CodeInvalid result, so a node can run next to newer ones
// during a rolling upgrade. An entry that cannot be decoded or a bbolt
// failure is a broken invariant and panics.
func (f *FSM) ApplyBatch(logs []*raft.Log) []interface{} {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	p := f.openPending()
	results := make([]interface{}, len(logs))
	for i, l := range logs {
		if l.Index <= p.applied {
			continue
		}
		p.applied = l.Index
		if l.Type != raft.LogCommand {
			continue
		}
		res, ev := p.t.applyEntry(l)
		results[i] = res
		p.commands++
		if ev != nil {
			p.events = append(p.events, *ev)
		}
	}
	since := time.Since(f.lastCommit)
	switch {
	case since >= f.commitDelay || p.commands >= maxPending || f.want > f.applied.Load():
		f.commitPending()
	case !p.timerSet:
		p.timerSet = true
		time.AfterFunc(f.commitDelay-since, func() { f.commitIfOpen(p) })
		fallthrough
	default:
		events := p.events
		f.pendingEvents.Store(&events)
	}
	return results
}

// openPending returns the open write transaction, beginning one if
// needed; f.wmu must be held.
func (f *FSM) openPending() *pending {
	if f.pend != nil {
		return f.pend
	}
	tx, err := f.db.Begin(true)
	if err != nil {
		panic(fmt.Sprintf("fsm: begin a write transaction: %v", err))
	}
	t := newTxn(tx, f.idx)
	f.pend = &pending{tx: tx, t: t, applied: t.applied()}
	return f.pend
}

// commitPending commits the open write transaction, if any, publishes its
// applied index and hands its events to the listener; f.wmu must be held.
func (f *FSM) commitPending() {
	p := f.pend
	if p == nil {
		return
	}
	f.pend = nil
	compacted := p.t.compacted()
	err := p.t.setApplied(p.applied)
	if err == nil {
		err = p.tx.Commit()
	}
	if err != nil {
		panic(fmt.Sprintf("fsm: commit batches ending at index %d: %v", p.applied, err))
	}
	f.lastCommit = time.Now()
	f.applied.Store(p.applied)
	f.compacted.Store(compacted)
	if p.t.dropped != nil {
		f.idx.prune(p.t.dropped, compacted)
	}
	f.pendingEvents.Store(nil)
	f.listener.Committed(p.applied, p.events)
}

// commitIfOpen is the commit timer: it commits p if it is still the open
// transaction.
func (f *FSM) commitIfOpen(p *pending) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	if f.pend == p {
		f.commitPending()
	}
}

// flush commits whatever is pending, for Snapshot.
func (f *FSM) flush() {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.commitPending()
}

// Need makes the state reflect index as soon as it can: when Applied is
// below index it commits the batches applied so far, and until Applied
// reaches index every batch is committed as soon as it is applied. It
// returns Applied. A reader that must see entry index calls it before
// waiting, so that it waits for raft only, never for the commit timer.
func (f *FSM) Need(index uint64) uint64 {
	if applied := f.applied.Load(); applied >= index {
		return applied
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.want = max(f.want, index)
	f.commitPending()
	return f.applied.Load()
}

// NeedPrefix is Need for a read that does not wait, of the keys starting
// with prefix: when Applied is below index it commits the pending batches
// if one of them changed such a key, and returns Applied. Pending batches
// that changed none leave those keys as the committed state shows them,
// so the read sees the same objects without forcing a commit. Only a read
// that finds such a change takes the write lock: the others check the
// pending events ApplyBatch published (pendingEvents), so reads do not
// queue behind applies and commits.
func (f *FSM) NeedPrefix(prefix string, index uint64) uint64 {
	if applied := f.applied.Load(); applied >= index {
		return applied
	}
	if events := f.pendingEvents.Load(); events == nil || !changedUnder(*events, prefix) {
		return f.applied.Load()
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	if p := f.pend; p != nil && changedUnder(p.events, prefix) {
		f.commitPending()
	}
	return f.applied.Load()
}

// changedUnder reports whether one of events is on a key starting with
// prefix.
func changedUnder(events []Event, prefix string) bool {
	for i := range events {
		if strings.HasPrefix(events[i].Key, prefix) {
			return true
		}
	}
	return false
}
