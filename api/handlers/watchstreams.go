package handlers

import (
	"sync/atomic"
	"time"
)

// WatchStreams counts a server's open watch streams. Their number sets how
// long a busy stream gathers events before it flushes them: each flush of
// each stream costs the node an HTTP/2 frame, a TLS record and a write to
// the connection, so with many streams open the node keeps its flushes per
// second near what streamsPerStep streams flushed every
// minFlushInterval cost, by batching more events per flush, up to
// maxFlushInterval. A stream that was quiet for the interval still
// flushes its next event at once. The zero value is ready; a nil
// *WatchStreams always gives minFlushInterval.
type WatchStreams struct{ open atomic.Int64 }

// Flush intervals of a busy watch stream (see WatchStreams).
const (
	minFlushInterval = 5 * time.Millisecond
	maxFlushInterval = 25 * time.Millisecond
	streamsPerStep   = 64
)

// opened counts a stream until the returned function is called.
func (ws *WatchStreams) opened() (closed func()) {
	if ws == nil {
		return func() {}
	}
	ws.open.Add(1)
	return func() { ws.open.Add(-1) }
}

// flushInterval is the shortest time between two flushes of a busy stream
// with as many streams open as now.
func (ws *WatchStreams) flushInterval() time.Duration {
	if ws == nil {
		return minFlushInterval
	}
	d := minFlushInterval * time.Duration(ws.open.Load()) / streamsPerStep
	return min(max(d, minFlushInterval), maxFlushInterval)
}
