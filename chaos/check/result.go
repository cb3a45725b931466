package check

import (
	"fmt"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

// Anomaly is one violation a checker found.
type Anomaly struct {
	// Kind names the guarantee broken, e.g. "stale-read", "duplicate-event".
	Kind string `json:"kind"`
	// Time is when it happened, in nanoseconds since the run began.
	Time int64 `json:"time"`
	// Message explains it with the operations and events involved.
	Message string `json:"message"`
}

// Result is what one checker concluded.
type Result struct {
	Checker string `json:"checker"`
	Passed  bool   `json:"passed"`
	// Checked and Skipped count the things examined and those that could
	// not be (for instance a list whose state cannot be reconstructed).
	Checked   int       `json:"checked"`
	Skipped   int       `json:"skipped,omitempty"`
	Anomalies []Anomaly `json:"anomalies,omitempty"`
	// Count is how many anomalies there were; Anomalies keeps the first
	// maxAnomalies of them.
	Count int `json:"count"`
	// Kinds counts the anomalies by kind.
	Kinds map[string]int `json:"kinds,omitempty"`
	// Tolerated counts anomalies of kinds the run was told to tolerate
	// (known, tracked issues); they do not fail the checker.
	Tolerated int    `json:"tolerated,omitempty"`
	Note      string `json:"note,omitempty"`
	// Artifacts maps a file name to contents to save beside the report
	// (porcupine's visualization of a non-linearizable key).
	Artifacts map[string][]byte `json:"-"`
}

// maxAnomalies bounds the anomalies kept per checker.
const maxAnomalies = 20

func (r *Result) add(kind string, at int64, format string, args ...any) {
	r.Count++
	if r.Kinds == nil {
		r.Kinds = map[string]int{}
	}
	r.Kinds[kind]++
	if len(r.Anomalies) < maxAnomalies {
		r.Anomalies = append(r.Anomalies, Anomaly{Kind: kind, Time: at, Message: fmt.Sprintf(format, args...)})
	}
}

func (r *Result) finish() Result {
	r.Passed = r.Count == 0
	return *r
}

// Options tune the checkers.
type Options struct {
	// LinearizabilityTimeout bounds porcupine's search per key; a key
	// whose check runs out of time fails as inconclusive.
	LinearizabilityTimeout time.Duration
	// Tolerate lists anomaly kinds that are reported but do not fail a
	// checker: known issues tracked in chaos/README.md.
	Tolerate []string
}

// tolerate lets the anomalies of the tolerated kinds pass.
func (r *Result) tolerate(kinds []string) {
	r.Tolerated = 0
	for _, k := range kinds {
		r.Tolerated += r.Kinds[k]
	}
	r.Passed = r.Count == r.Tolerated
}

// All runs every checker over h.
func All(h *history.History, opts Options) []Result {
	if opts.LinearizabilityTimeout == 0 {
		opts.LinearizabilityTimeout = 2 * time.Minute
	}
	tl := newTimeline(h)
	results := []Result{
		Linearizable(h, opts.LinearizabilityTimeout),
		Watch(h, tl),
		Lists(h, tl),
		Observations(h, tl),
	}
	for i := range results {
		results[i].tolerate(opts.Tolerate)
	}
	return results
}

// Passed reports whether every result passed.
func Passed(results []Result) bool {
	for _, r := range results {
		if !r.Passed {
			return false
		}
	}
	return true
}

// at formats a run time for messages.
func at(ns int64) string { return fmt.Sprintf("%.3fs", float64(ns)/1e9) }
