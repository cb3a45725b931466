package main

import (
	"os"
	"runtime/debug"
)

// serveGCPercent is the garbage collector's target for a serving node,
// unless the GOGC environment variable sets one.
//
// A node's live heap is small next to the data it holds (the objects live
// in the state file's page cache, not on the Go heap): about 30 MB on a
// node of a 3-node cluster taking 3,000 writes per second. Go's default
// of 100 lets the heap grow by only that much between collections, so
// under that load a node collected five to seven times a second, and the
// collector's marking and the assists it charges to allocations took
// about a tenth of the node's CPU. At 300 a node collects a third as
// often: in two pairs of runs of make bench-cluster, 64 clients' writes
// were 5 to 20% faster for 3 to 18% less of the servers' CPU per write,
// for about 65 MB more heap per node (resident size 240 MB before, 325
// MB after, under that load), which the memory target (resident size
// under twice the data held) has room for. A GOGC in the environment
// replaces it, as for any Go program; GOMEMLIMIT bounds the heap either
// way.
const serveGCPercent = 300

// tuneGC sets serveGCPercent unless the environment chose a target. An
// empty GOGC chooses none, as the runtime reads it.
func tuneGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(serveGCPercent)
}
