package scalebench

import (
	"io"
	"time"
)

// Config is a bench-scale run. The sizes are the figures' own; a smoke
// run makes them tiny.
type Config struct {
	// Raftapi is the raftapi binary.
	Raftapi string
	// Nodes is the cluster's size.
	Nodes int
	// WorkDir holds the nodes' data; the caller removes it.
	WorkDir string
	// Duration is the length of the timed figures (watch fan-out, paged
	// list).
	Duration time.Duration
	// ValueSize is the size of every ConfigMap's value.
	ValueSize int
	// Watchers watch while writes go in at WatchRate per second.
	Watchers  int
	WatchRate float64
	// MaxCutOff is how many cut-off watchers the run tolerates; -1: any
	// (then they are a figure, not a failure).
	MaxCutOff int
	// ListObjects is the size of the listed namespace; PageLimit the
	// paged list's limit.
	ListObjects, PageLimit int
	// Churn is how many of the listed objects are updated between the
	// Exact list's old and current revisions.
	Churn int
	// Repeat is how many times each single-request list runs.
	Repeat int
	// RestartObjects is how many objects the cluster holds when a node
	// restarts; the list's objects count towards it.
	RestartObjects int
	// LoadClients create the objects.
	LoadClients int
	// CatchUp adds a fourth member at the end and times its catching up.
	CatchUp bool
	// Log receives progress lines.
	Log io.Writer
}
