package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// Scope is what the handlers of one resource (or subresource) share: the
// registry store that carries out the verbs and what the responses are
// encoded with, as kube-apiserver's RequestScope.
type Scope struct {
	// Store carries out the verbs.
	Store *registry.Store
	// Resource is the resource served (for a subresource, its parent).
	Resource *resource.Resource
	Codecs   *codec.Codecs
	// Now is the clock of Table ages.
	Now func() time.Time
	// BookmarkInterval is how often a watch with allowWatchBookmarks gets
	// a bookmark.
	BookmarkInterval time.Duration
	// WatchWriteTimeout bounds each watch event's write to the client: a
	// watcher that stops reading is dropped, connection and all, once a
	// write has waited that long. Zero means DefaultWatchWriteTimeout.
	WatchWriteTimeout time.Duration
	// Streams, if set, counts the server's open watch streams (shared by
	// every scope of the server).
	Streams *WatchStreams
	// Stopping, if set, ends when the server begins to stop: every open
	// watch then ends as its timeout would end it, and its client
	// resumes elsewhere, rather than holding the server's shutdown.
	Stopping context.Context
}

// pathVars returns the namespace and name of the request's path.
func pathVars(r *http.Request) (ns, name string) {
	v := mux.Vars(r)
	return v["namespace"], v["name"]
}
