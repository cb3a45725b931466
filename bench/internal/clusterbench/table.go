package clusterbench

import (
	"fmt"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/report"
)

// columns are the table's columns.
var columns = []string{"figure", "raftapi ops/s", "p50", "p99", "etcd ops/s", "p50", "p99", "raftapi/etcd"}

// Table sets the targets' outcomes side by side, a row per figure. The
// ratio is raftapi's throughput over etcd's; for the watch figure, whose
// throughput is the paced writes' events, it is the ratio of the p99
// delivery latencies instead, marked so.
func (r Results) Table() report.Table {
	t := report.Table{Columns: columns}
	etcd := map[string]figures.Outcome{}
	for _, o := range r.Etcd {
		etcd[o.Figure] = o
	}
	for _, o := range r.Raftapi {
		row := append([]string{o.Figure}, cells(o)...)
		e, ok := etcd[o.Figure]
		if !ok {
			t.Rows = append(t.Rows, append(row, "–", "–", "–", "–"))
			continue
		}
		t.Rows = append(t.Rows, append(append(row, cells(e)...), ratio(o, e)))
	}
	return t
}

func cells(o figures.Outcome) []string {
	s := o.Summary
	return []string{report.Rate(s.OpsPerSec), report.Duration(s.P50), report.Duration(s.P99)}
}

func ratio(r, e figures.Outcome) string {
	if r.Watch != nil {
		if e.Summary.P99 <= 0 {
			return "–"
		}
		return fmt.Sprintf("p99 %.2f×", float64(r.Summary.P99)/float64(e.Summary.P99))
	}
	if e.Summary.OpsPerSec <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", r.Summary.OpsPerSec/e.Summary.OpsPerSec)
}

// Notes are the outcomes' notes and problems, one line each.
func (r Results) Notes() []string {
	var out []string
	for _, o := range append(append([]figures.Outcome(nil), r.Raftapi...), r.Etcd...) {
		if o.Note != "" {
			out = append(out, fmt.Sprintf("%s, %s: %s", o.Target, o.Figure, o.Note))
		}
		for _, p := range o.Problems() {
			out = append(out, fmt.Sprintf("FAILED %s, %s: %s", o.Target, o.Figure, p))
		}
	}
	return out
}

// Problems lists every outcome's problems: a run with any failed.
func (r Results) Problems() []string {
	var out []string
	for _, o := range append(append([]figures.Outcome(nil), r.Raftapi...), r.Etcd...) {
		for _, p := range o.Problems() {
			out = append(out, fmt.Sprintf("%s, %s: %s", o.Target, o.Figure, p))
		}
	}
	return out
}
