package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// TestSnapshotCount: with --snapshot-count 100 a node takes a snapshot
// once more than 100 applied entries follow its newest one, long before
// raft's own policy would (8,192 entries, checked every two minutes),
// and its status reports the snapshot's index.
func TestSnapshotCount(t *testing.T) {
	const count = 100
	n := startSingleNodeWith(t, func(c *Config) { c.SnapshotCount = count })
	for i := range 2 * count {
		if code, body := httpDo(t, n, http.MethodPost, "/api/v1/namespaces/default/configmaps", configMap(fmt.Sprintf("cm-%d", i), "v")); code != http.StatusCreated {
			t.Fatalf("create cm-%d: %d %s", i, code, body)
		}
	}
	rev := n.Store().Revision()
	pollUntil(t, "a snapshot within the count of the last write", func() (bool, string) {
		code, body := httpDo(t, n, http.MethodGet, StatusPath, "")
		var st raftstore.Status
		if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
			return false, fmt.Sprintf("status: %d %s", code, body)
		}
		return st.SnapshotIndex > 0 && st.SnapshotIndex+count >= rev,
			fmt.Sprintf("snapshot at %d, last write at %d", st.SnapshotIndex, rev)
	})
}
