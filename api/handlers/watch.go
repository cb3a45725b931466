package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
	"github.com/raftapi/raftapi/api/registry"
)

// defaultWatchTimeout bounds a watch without timeoutSeconds.
const defaultWatchTimeout = 30 * time.Minute

// watch serves a watch request: the initial state when the semantics ask
// for it, then the change stream.
func (s *Scope) watch(w http.ResponseWriter, r *http.Request, q *query, ns string, out negotiation.Output) {
	if out.Enc == negotiation.YAML {
		WriteStatus(w, codec.NotAcceptable(s.Resource.Typed()))
		return
	}
	timeout := defaultWatchTimeout
	if q.timeout > 0 {
		timeout = q.timeout
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if s.Stopping != nil {
		defer context.AfterFunc(s.Stopping, cancel)()
	}
	wr, err := s.Store.Watch(ctx, ns, q.list)
	if err != nil {
		WriteStatus(w, err)
		return
	}
	defer wr.Watcher.Stop()
	st := s.newStream(w, out)
	// The server ends the response after the handler returns: bound that
	// last write too.
	defer st.arm()
	for _, it := range wr.Initial {
		if !st.send("ADDED", it.Data) {
			return
		}
	}
	if wr.InitialEventsEnd && !st.send("BOOKMARK", s.encoder().bookmark(wr.From, true)) {
		return
	}
	if !st.flush() {
		return
	}
	s.pump(ctx, st, wr.Watcher, q.bookmarks)
}

// pump copies store events to the stream until the watch or request ends.
// A busy stream is flushed at most once per flush interval (see
// WatchStreams): events that come sooner after a flush are written at
// once and sent with the next flush, when the interval is up, so a watch
// of many events costs the server a write to the connection per few
// events rather than one each. An event after a quiet spell is flushed
// at once.
func (s *Scope) pump(ctx context.Context, st *stream, sw registry.Watcher, bookmarks bool) {
	var tick <-chan time.Time
	if bookmarks {
		t := time.NewTicker(s.BookmarkInterval)
		defer t.Stop()
		tick = t.C
	}
	defer s.Streams.opened()()
	f := flusher{st: st, streams: s.Streams}
	defer f.stop()
	// Events written but not yet due for a flush still go out: the
	// server flushes the response after the handler returns.
	defer st.writePending()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			sw.RequestProgress()
		case <-f.due:
			if !f.flush() {
				return
			}
		case ev, ok := <-sw.ResultChan():
			if !ok || !s.sendEvent(st, ev, bookmarks) || !s.sendReady(st, sw, bookmarks) || !f.written() {
				return
			}
		}
	}
}

// flusher decides when a watch stream's written events are flushed.
type flusher struct {
	st      *stream
	streams *WatchStreams    // sets the interval between flushes
	last    time.Time        // the last flush
	timer   *time.Timer      // set while due is armed
	due     <-chan time.Time // fires when written events are to be flushed; nil when none wait
}

// written flushes the events just written when the last flush is at least
// flushInterval old, and otherwise arms due for when it will be.
func (f *flusher) written() bool {
	if f.due != nil {
		return true // a flush is already due
	}
	wait := f.streams.flushInterval() - time.Since(f.last)
	if wait <= 0 {
		return f.flush()
	}
	if f.timer == nil {
		f.timer = time.NewTimer(wait)
	} else {
		f.timer.Reset(wait)
	}
	f.due = f.timer.C
	return true
}

// flush sends the written events.
func (f *flusher) flush() bool {
	f.due = nil
	f.last = time.Now()
	return f.st.flush()
}

// stop releases the timer.
func (f *flusher) stop() {
	if f.timer != nil {
		f.timer.Stop()
	}
}

// sendReady writes the events already waiting, up to maxUnflushed, so
// that one flush carries them all.
func (s *Scope) sendReady(st *stream, sw registry.Watcher, bookmarks bool) bool {
	for range maxUnflushed {
		select {
		case ev, ok := <-sw.ResultChan():
			if !ok || !s.sendEvent(st, ev, bookmarks) {
				return false
			}
		default:
			return true
		}
	}
	return true
}

// maxUnflushed bounds the events written between two flushes.
const maxUnflushed = 256

func (s *Scope) sendEvent(st *stream, ev registry.WatchEvent, bookmarks bool) bool {
	switch ev.Type {
	case registry.Bookmark:
		return !bookmarks || st.send("BOOKMARK", s.encoder().bookmark(ev.Rev, false))
	case registry.WatchError:
		se := registry.StatusError(ev.Err, s.Resource, "")
		if registry.IsExpired(ev.Err) {
			se = apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", ev.Rev))
		}
		status := se.ErrStatus
		status.Kind, status.APIVersion = "Status", "v1"
		st.sendStatus(&status)
		return false
	}
	return st.send(ev.Type.String(), ev.Object)
}

// bookmark returns a bookmark object: the resource's kind with only a
// resourceVersion (and the initial-events-end annotation when asked).
func (e encoder) bookmark(rev uint64, initialEnd bool) []byte {
	meta := map[string]any{"resourceVersion": strconv.FormatUint(rev, 10)}
	if initialEnd {
		meta["annotations"] = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	raw, _ := json.Marshal(map[string]any{"kind": e.res.Kind, "apiVersion": e.res.APIVersion(), "metadata": meta})
	return raw
}
