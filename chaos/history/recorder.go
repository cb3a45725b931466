package history

import (
	"sync"
	"time"
)

// Recorder collects a run's records from many goroutines.
type Recorder struct {
	start time.Time

	mu   sync.Mutex
	h    History
	next int64
	seq  int64
}

// NewRecorder starts the run's clock.
func NewRecorder(namespace string, nodes []string) *Recorder {
	return &Recorder{start: time.Now(), h: History{Namespace: namespace, Nodes: nodes, Attempted: map[string]bool{}}}
}

// Now is the time since the run began, in nanoseconds.
func (r *Recorder) Now() int64 { return int64(time.Since(r.start)) }

// Begin returns a new operation with its ID and invoke time set. A write
// must set its value first: the value is remembered as attempted.
func (r *Recorder) Begin(op Op) Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	op.ID = r.next
	if op.IsWrite() && op.Value != "" {
		r.h.Attempted[op.Value] = true
	}
	op.Invoke = r.Now()
	return op
}

// End records a completed operation, stamping its complete time.
func (r *Recorder) End(op Op) {
	op.Complete = r.Now()
	r.mu.Lock()
	r.h.Ops = append(r.h.Ops, op)
	r.mu.Unlock()
}

// Event records a watch event, stamping its time and sequence number.
func (r *Recorder) Event(e WatchEvent) {
	r.mu.Lock()
	r.seq++
	e.Seq = r.seq
	e.Time = r.Now()
	r.h.Events = append(r.h.Events, e)
	r.mu.Unlock()
}

// Fault records a fault window.
func (r *Recorder) Fault(f Fault) {
	r.mu.Lock()
	r.h.Faults = append(r.h.Faults, f)
	r.mu.Unlock()
}

// Sample records a status sample, stamping its time.
func (r *Recorder) Sample(s Sample) {
	s.Time = r.Now()
	r.mu.Lock()
	r.h.Samples = append(r.h.Samples, s)
	r.mu.Unlock()
}

// History returns a copy of everything recorded so far.
func (r *Recorder) History() *History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.h
	h.Ops = append([]Op(nil), r.h.Ops...)
	h.Events = append([]WatchEvent(nil), r.h.Events...)
	h.Faults = append([]Fault(nil), r.h.Faults...)
	h.Samples = append([]Sample(nil), r.h.Samples...)
	h.Attempted = make(map[string]bool, len(r.h.Attempted))
	for v := range r.h.Attempted {
		h.Attempted[v] = true
	}
	h.End = r.Now()
	return &h
}
