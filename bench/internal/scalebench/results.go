package scalebench

import (
	"time"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/load"
	"github.com/raftapi/raftapi/bench/internal/procs"
)

// Results are a run's measurements; a step that did not run is nil.
type Results struct {
	Watch    *figures.Outcome `json:"watch,omitempty"`
	Loads    []Load           `json:"loads,omitempty"`
	List     *List            `json:"list,omitempty"`
	Paged    *Paged           `json:"paged,omitempty"`
	Exact    *Exact           `json:"exact,omitempty"`
	Memory   []Memory         `json:"memory,omitempty"`
	Restart  *Restart         `json:"restart,omitempty"`
	CatchUp  *CatchUp         `json:"catch_up,omitempty"`
	Problems []string         `json:"problems,omitempty"`
}

// Load is one bulk load of objects into a namespace.
type Load struct {
	Namespace string        `json:"namespace"`
	Objects   int           `json:"objects"`
	Clients   int           `json:"clients"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	// Bytes is the sum of the objects' sizes as the server returned them.
	Bytes int64 `json:"bytes"`
	// Rate is objects created per second, sampled over the load.
	Rate []RatePoint `json:"rate"`
}

// RatePoint is a load's rate at a moment.
type RatePoint struct {
	At        time.Duration `json:"at_ns"`
	PerSecond float64       `json:"per_sec"`
}

// List is the single-request list of a namespace of many objects.
type List struct {
	Objects int             `json:"objects"`
	Bytes   int64           `json:"bytes"`
	Times   []time.Duration `json:"times_ns"`
}

// Paged is the paged list: every page of the namespace, over and over.
type Paged struct {
	Limit   int           `json:"limit"`
	Summary load.Summary  `json:"summary"`
	Series  []load.Bucket `json:"series"`
}

// Exact compares Exact lists at an old revision and at a current one.
type Exact struct {
	OldRV     string          `json:"old_rv"`
	CurrentRV string          `json:"current_rv"`
	Churn     int             `json:"churn"`
	Old       []time.Duration `json:"old_ns"`
	Current   []time.Duration `json:"current_ns"`
}

// Memory is one node's resident memory against the data the cluster
// holds.
type Memory struct {
	Node string `json:"node"`
	// Role is the node's raft state then: Leader, Follower.
	Role string `json:"role"`
	When string `json:"when"`
	procs.Memory
	// Held is the sum of the objects' sizes as the server encodes them.
	Held int64 `json:"held_bytes"`
	// StateBytes and LogBytes are the node's databases on disk.
	StateBytes int64 `json:"state_bytes"`
	LogBytes   int64 `json:"log_bytes"`
}

// Restart is a node restarted on a data directory holding Objects.
type Restart struct {
	Node    string        `json:"node"`
	Objects int           `json:"objects"`
	Ready   time.Duration `json:"ready_ns"`
}

// CatchUp is a new member brought up to date by the leader.
type CatchUp struct {
	Node string `json:"node"`
	// Add is how long the member add request took: the leader may take a
	// snapshot for the newcomer first.
	Add time.Duration `json:"add_ns"`
	// Ready is from its start to /readyz 200; CaughtUp to its applied
	// index reaching the leader's commit index of when it started.
	Ready    time.Duration `json:"ready_ns"`
	CaughtUp time.Duration `json:"caught_up_ns"`
	// Bytes is the size of its databases once caught up.
	Bytes int64 `json:"bytes"`
}
