package cluster

import (
	"encoding/json"
	"net/http"

	"github.com/raftapi/raftapi/raftstore"
)

// StatusPath serves the node's raft status as JSON.
const StatusPath = "/raftapi/v1/status"

// statusHandler serves Store.Status.
func statusHandler(s *raftstore.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.StatusWithDisk())
	})
}
