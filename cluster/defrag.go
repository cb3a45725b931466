package cluster

import "github.com/raftapi/raftapi/raftstore"

// DefragResult is what Defrag did to one database file.
type DefragResult = raftstore.DefragResult

// ErrInUse is returned by Defrag for the data directory of a running node.
var ErrInUse = raftstore.ErrInUse

// Defrag compacts the databases of a stopped node's data directory (see
// raftstore.Defrag).
func Defrag(dataDir string) ([]DefragResult, error) { return raftstore.Defrag(dataDir) }
