// Package scalebench is make bench-scale: raftapi alone, at sizes:
// watch fan-out to many watchers under a steady write rate, one list of
// many objects, paged lists, an Exact list at an old revision against a
// current one, the resident memory of each node against the data it
// holds, how long a node holding many objects takes to be ready after a
// restart, and how fast a new member catches up.
package scalebench
