package audit

import (
	"io"
	"log/slog"
	"sync"
)

// maxWrite bounds one write to the log: lines are written in runs of
// whole lines up to this size (a longer line alone), so that a rotation
// never splits a line and one write does not hold much.
const maxWrite = 256 << 10

// lineWriter writes lines to the log in groups (group commit). Lines
// that arrive while a write is under way join the open group, which the
// next write takes whole.
//
// In the blocking modes the requests write themselves: a request whose
// line finds no write under way writes the open group (its own line and
// whatever joined it) and wakes the others; the rest wait until their
// group is written, or until it is their turn to write it. So an event
// alone costs one write on the request's own goroutine, as in kube's
// blocking log backend, and concurrent events share writes; each request
// writes at most one group.
//
// In batch mode one goroutine writes and requests never wait; a line
// that finds bufferSize lines already waiting is dropped, as kube's
// buffered backend drops events when its buffer is full.
type lineWriter struct {
	out   io.WriteCloser
	wait  bool
	limit int // lines waiting before drops; 0 for none (blocking modes)
	log   *slog.Logger

	mu      sync.Mutex
	cond    *sync.Cond // a group was written
	cur     *group     // the open group
	writing bool
	closed  bool
	dropped int // lines dropped since the last report

	// batch mode only
	wake    chan struct{}
	stopped chan struct{}
}

// group is lines written together.
type group struct {
	buf     []byte
	ends    []int // end offset of each line in buf
	written bool
	err     error
}

func newLineWriter(out io.WriteCloser, mode string, bufferSize int, log *slog.Logger) *lineWriter {
	w := &lineWriter{out: out, wait: mode != ModeBatch, log: log, cur: &group{}}
	w.cond = sync.NewCond(&w.mu)
	if !w.wait {
		w.limit = bufferSize
		w.wake, w.stopped = make(chan struct{}, 1), make(chan struct{})
		go w.run()
	}
	return w
}

// write adds line to the open group and, in the blocking modes, returns
// once it is written; it reports whether it was written (batch mode:
// queued).
func (w *lineWriter) write(line []byte) bool {
	w.mu.Lock()
	if w.closed || (w.limit > 0 && len(w.cur.ends) >= w.limit) {
		w.dropped++
		first := w.dropped == 1
		w.mu.Unlock()
		if first {
			w.log.Error("audit event dropped: the log writer is behind or closed")
		}
		return false
	}
	g := w.cur
	g.buf = append(g.buf, line...)
	g.ends = append(g.ends, len(g.buf))
	if !w.wait {
		w.mu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default:
		}
		return true
	}
	for !g.written {
		if w.writing {
			w.cond.Wait()
			continue
		}
		w.flushOpenLocked()
	}
	w.mu.Unlock()
	return g.err == nil
}

// flushOpenLocked writes the open group, releasing the lock during the
// write, and wakes the waiters. The caller holds w.mu and no write is
// under way.
func (w *lineWriter) flushOpenLocked() {
	g := w.cur
	w.cur, w.writing = &group{}, true
	dropped := w.dropped
	w.dropped = 0
	w.mu.Unlock()
	if dropped > 1 {
		w.log.Error("audit events dropped", "count", dropped)
	}
	err := w.writeLines(g)
	w.mu.Lock()
	g.err, g.written, w.writing = err, true, false
	w.cond.Broadcast()
}

// writeLines writes g in runs of whole lines of at most maxWrite bytes;
// a failed write fails the group.
func (w *lineWriter) writeLines(g *group) error {
	var failed error
	start := 0
	for i, end := range g.ends {
		if i+1 < len(g.ends) && g.ends[i+1]-start <= maxWrite {
			continue
		}
		if _, err := w.out.Write(g.buf[start:end]); err != nil {
			w.log.Error("writing the audit log", "err", err)
			failed = err
		}
		start = end
	}
	return failed
}

// run is batch mode's writer: it writes the open group whenever lines
// arrive, and what is left once the writer is closed.
func (w *lineWriter) run() {
	defer close(w.stopped)
	for range w.wake {
		w.mu.Lock()
		for len(w.cur.ends) > 0 {
			w.flushOpenLocked()
		}
		closed := w.closed
		w.mu.Unlock()
		if closed {
			return
		}
	}
}

// close writes what is queued, stops the writer and closes the output.
// Lines written afterwards are dropped.
func (w *lineWriter) close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	if !w.wait {
		w.mu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default:
		}
		<-w.stopped
		return w.out.Close()
	}
	for w.writing || len(w.cur.ends) > 0 {
		if w.writing {
			w.cond.Wait()
			continue
		}
		w.flushOpenLocked()
	}
	w.mu.Unlock()
	return w.out.Close()
}
