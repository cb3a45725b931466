package raftstore_test

import (
	"testing"

	"github.com/raftapi/raftapi/raftstore/storetest"
)

// conformance lists the storage conformance suite. The tests share one
// cluster per size and run in order; RunTestCompaction only drops history
// below revisions it wrote itself, so the order does not matter.
var conformance = []struct {
	name string
	run  func(*testing.T, *storetest.Cluster)
}{
	{"Create", storetest.RunTestCreate},
	{"Update", storetest.RunTestUpdate},
	{"Delete", storetest.RunTestDelete},
	{"Get", storetest.RunTestGet},
	{"List", storetest.RunTestList},
	{"ListPagination", storetest.RunTestListPagination},
	{"ConsistentRead", storetest.RunTestConsistentRead},
	{"Compaction", storetest.RunTestCompaction},
	{"Watch", storetest.RunTestWatch},
	{"WatchHistory", storetest.RunTestWatchHistory},
	{"WatchPredicate", storetest.RunTestWatchPredicate},
	{"WatchBookmark", storetest.RunTestWatchBookmark},
}

// TestConformance runs the storage conformance suite against a 1-node and
// a 3-node cluster.
func TestConformance(t *testing.T) {
	for _, size := range []struct {
		name  string
		nodes int
	}{{"1node", 1}, {"3node", 3}} {
		t.Run(size.name, func(t *testing.T) {
			c := storetest.NewCluster(t, size.nodes, storetest.ShortWaits())
			for _, tc := range conformance {
				t.Run(tc.name, func(t *testing.T) { tc.run(t, c) })
			}
		})
	}
}
