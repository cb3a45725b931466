package history

// EventType is the type of a watch event as the server sent it.
type EventType string

// The watch event types, and the harness's own session markers.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
	// Start marks a new watch request (Resume tells whether it resumes).
	Start EventType = "START"
	// Relist marks a watcher that lost its position (410) and listed the
	// state again at RV; the checks of its stream restart there.
	Relist EventType = "RELIST"
	// Stop marks the end of a watcher at the end of the run; RV is the
	// resourceVersion it was to catch up with first.
	Stop EventType = "STOP"
)

// WatchEvent is one event a watcher received, or a marker of its
// session. Events of one watcher are recorded in arrival order; Seq
// orders them.
type WatchEvent struct {
	Watcher int   `json:"watcher"`
	Seq     int64 `json:"seq"`
	// Resource is the collection the watcher follows (see Op.Resource).
	Resource string    `json:"resource,omitempty"`
	Node     string    `json:"node"`
	Time     int64     `json:"time"`
	Type     EventType `json:"type"`
	Key      string    `json:"key,omitempty"`
	Value    string    `json:"value,omitempty"`
	RV       int64     `json:"rv"`
	// Initial marks a synthetic ADDED of a watch's initial state.
	Initial bool `json:"initial,omitempty"`
	// InitialEnd marks the bookmark annotated k8s.io/initial-events-end.
	InitialEnd bool `json:"initialEnd,omitempty"`
	// Mode is the watcher's kind (on START): plain, bookmarks or
	// initial-events.
	Mode string `json:"mode,omitempty"`
	// Version is the API version a START's watch (or a RELIST's list)
	// went through, when the resource is served in several.
	Version string `json:"version,omitempty"`
	// Items is the state a RELIST read.
	Items []Item `json:"items,omitempty"`
	// Code is the HTTP status of an ERROR event.
	Code int `json:"code,omitempty"`
}

// IsChange reports whether the event is a change of an object.
func (e *WatchEvent) IsChange() bool {
	return e.Type == Added || e.Type == Modified || e.Type == Deleted
}

// The watcher kinds of the watch workload (the Mode of a START marker).
const (
	WatchPlain         = "plain"          // resumes from rv, no bookmarks
	WatchBookmarks     = "bookmarks"      // resumes from rv, allowWatchBookmarks
	WatchInitialEvents = "initial-events" // sendInitialEvents=true first
)
