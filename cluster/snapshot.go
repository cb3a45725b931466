package cluster

import (
	"net/http"

	"github.com/raftapi/raftapi/raftstore"
)

// SnapshotPath streams a consistent snapshot of the node's state.
const SnapshotPath = "/raftapi/v1/snapshot"

func snapshotHandler(*raftstore.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "not implemented", http.StatusNotImplemented) })
}
