package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/raftstore"
)

// defaultWatchTimeout bounds a watch without timeoutSeconds.
const defaultWatchTimeout = 30 * time.Minute

// watch serves a watch request: initial state when the semantics ask for
// it, then the change stream of the store.
func (h *handler) watch(w http.ResponseWriter, r *http.Request, q *query, ns string, out output) {
	if out.enc == encYAML {
		writeStatus(w, notAcceptable(h.res.Typed()))
		return
	}
	initial, ro, err := q.watchStart()
	if err != nil {
		writeStatus(w, err)
		return
	}
	timeout := defaultWatchTimeout
	if q.timeoutSeconds > 0 {
		timeout = time.Duration(q.timeoutSeconds) * time.Second
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	var items []raftstore.Object
	from := q.revision()
	if initial {
		l, err := h.store().List(ctx, h.res.Prefix(ns), raftstore.ListOptions{ReadOptions: ro, Predicate: q.predicate(h.res)})
		if err != nil {
			writeStatus(w, storeError(err, h.res, ""))
			return
		}
		items, from = l.Items, l.Revision
	}
	sw, err := h.store().Watch(ctx, h.res.Prefix(ns), raftstore.WatchOptions{Revision: from, Predicate: q.predicate(h.res), Recursive: true})
	if err != nil {
		writeStatus(w, storeError(err, h.res, ""))
		return
	}
	defer sw.Stop()
	st := h.newStream(w, out)
	for _, it := range items {
		if !st.send("ADDED", it.Data) {
			return
		}
	}
	if q.sendInitialEvents != nil && *q.sendInitialEvents {
		if !st.send("BOOKMARK", h.bookmark(from, true)) {
			return
		}
	}
	h.pump(ctx, st, sw, q.bookmarks)
}

// watchStart decides from the query whether the watch starts with the
// current state (and read at which consistency) or from a revision.
func (q *query) watchStart() (bool, raftstore.ReadOptions, error) {
	sendInitial := q.sendInitialEvents != nil && *q.sendInitialEvents
	if q.match != "" && q.sendInitialEvents == nil {
		return false, raftstore.ReadOptions{}, invalidList("resourceVersionMatch", q.match, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
	}
	if sendInitial && q.match != string(metav1.ResourceVersionMatchNotOlderThan) {
		return false, raftstore.ReadOptions{}, invalidList("resourceVersionMatch", q.match, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	}
	switch {
	case sendInitial && q.rvSet && q.rv != "0":
		return true, raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: q.revision()}, nil
	case !q.rvSet && (q.sendInitialEvents == nil || sendInitial):
		return true, raftstore.ReadOptions{Consistency: raftstore.MostRecent}, nil
	case q.rv == "0" && (q.sendInitialEvents == nil || sendInitial):
		return true, raftstore.ReadOptions{Consistency: raftstore.Any}, nil
	}
	return false, raftstore.ReadOptions{}, nil
}

// pump copies store events to the stream until the watch or request ends.
func (h *handler) pump(ctx context.Context, st *stream, sw *raftstore.Watch, bookmarks bool) {
	var tick <-chan time.Time
	if bookmarks {
		t := time.NewTicker(h.server.opts.BookmarkInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			sw.RequestProgress()
		case ev, ok := <-sw.ResultChan():
			if !ok || !h.sendEvent(st, ev, bookmarks) {
				return
			}
		}
	}
}

func (h *handler) sendEvent(st *stream, ev raftstore.WatchEvent, bookmarks bool) bool {
	switch ev.Type {
	case raftstore.Bookmark:
		return !bookmarks || st.send("BOOKMARK", h.bookmark(ev.Rev, false))
	case raftstore.WatchError:
		se := storeError(ev.Err, h.res, "")
		if raftstore.IsExpired(ev.Err) {
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
func (h *handler) bookmark(rev uint64, initialEnd bool) []byte {
	meta := map[string]any{"resourceVersion": strconv.FormatUint(rev, 10)}
	if initialEnd {
		meta["annotations"] = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	raw, _ := json.Marshal(map[string]any{"kind": h.res.Kind, "apiVersion": h.res.APIVersion(), "metadata": meta})
	return raw
}
