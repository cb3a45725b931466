package convbench

import (
	"testing"
	"time"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/load"
)

// TestTable: a row per figure, each converting way's throughput over the
// storage version's, and the watch figure's p99 ratio beside it.
func TestTable(t *testing.T) {
	fig := func(way, name string, ops float64, p99 time.Duration, watch bool) figures.Outcome {
		o := figures.Outcome{Figure: name, Target: way, Summary: load.Summary{Ops: 1, OpsPerSec: ops, P99: p99}}
		if watch {
			o.Watch = &figures.WatchCounts{}
		}
		return o
	}
	r := Results{Ways: []string{Storage, None, Declarative}, Outcomes: map[string][]figures.Outcome{
		Storage:     {fig(Storage, "get", 1000, time.Millisecond, false), fig(Storage, "watch", 500, 2*time.Millisecond, true)},
		None:        {fig(None, "get", 900, time.Millisecond, false), fig(None, "watch", 500, 3*time.Millisecond, true)},
		Declarative: {fig(Declarative, "get", 500, time.Millisecond, false), fig(Declarative, "watch", 250, 8*time.Millisecond, true)},
	}}
	tb := r.Table()
	if len(tb.Rows) != 2 || len(tb.Rows[0]) != len(columns) {
		t.Fatalf("table: %v", tb.Rows)
	}
	if got := tb.Rows[0][7] + " " + tb.Rows[0][11]; got != "0.90× 0.50×" {
		t.Errorf("get ratios: %s", got)
	}
	if got := tb.Rows[1][11]; got != "0.50× (p99 4.00×)" {
		t.Errorf("watch ratio: %s", got)
	}
	if len(r.Problems()) != 0 {
		t.Errorf("problems: %v", r.Problems())
	}
}

// TestMedian: the round of median throughput, or for a watch figure of
// median p99 latency, with every round in its note.
func TestMedian(t *testing.T) {
	get := func(ops float64) figures.Outcome {
		return figures.Outcome{Figure: "get", Summary: load.Summary{OpsPerSec: ops}}
	}
	m := median([]figures.Outcome{get(300), get(100), get(200)})
	if m.Summary.OpsPerSec != 200 || m.Note != "median of 3 rounds (300 ops/s p99 0s; 100 ops/s p99 0s; 200 ops/s p99 0s)" {
		t.Errorf("median %v: %q", m.Summary.OpsPerSec, m.Note)
	}
	watch := func(ops float64, p99 time.Duration) figures.Outcome {
		return figures.Outcome{Figure: "watch", Watch: &figures.WatchCounts{}, Summary: load.Summary{OpsPerSec: ops, P99: p99}}
	}
	if m := median([]figures.Outcome{watch(10, 9*time.Millisecond), watch(12, time.Millisecond), watch(11, 5*time.Millisecond)}); m.Summary.P99 != 5*time.Millisecond {
		t.Errorf("watch median p99 %v, want 5ms", m.Summary.P99)
	}
	if m := median([]figures.Outcome{get(5)}); m.Note != "" {
		t.Errorf("one round noted %q", m.Note)
	}
}
