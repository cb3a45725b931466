package clusterbench

import (
	"fmt"
	"slices"
	"time"

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
	all := func(figures.Outcome) bool { return true }
	return report.Table{Columns: columns, Rows: r.sideBySide(all, cells, ratio)}
}

// sideBySide makes a row per raftapi outcome that keep accepts: the
// figure, its cells, and etcd's cells of the same figure and the ratio,
// or dashes where etcd has no such outcome.
func (r Results) sideBySide(keep func(figures.Outcome) bool, cells func(figures.Outcome) []string, ratio func(r, e figures.Outcome) string) [][]string {
	etcd := map[string]figures.Outcome{}
	for _, o := range r.Etcd {
		if keep(o) {
			etcd[o.Figure] = o
		}
	}
	var rows [][]string
	for _, o := range r.Raftapi {
		if !keep(o) {
			continue
		}
		row := append([]string{o.Figure}, cells(o)...)
		e, ok := etcd[o.Figure]
		if !ok {
			rows = append(rows, append(row, slices.Repeat([]string{"–"}, len(row))...))
			continue
		}
		rows = append(rows, append(append(row, cells(e)...), ratio(o, e)))
	}
	return rows
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

// cpuColumns are the CPU table's columns.
var cpuColumns = []string{"figure", "raftapi servers", "per op", "load generator", "etcd servers", "per op", "load generator", "raftapi/etcd per op"}

// CPUTable sets the CPU time of each read and write figure side by
// side: how many cores the servers used, their CPU time per operation,
// and the load generator's per operation. Where both systems keep the
// two cores busy, the throughput ratio is about the inverse of the
// ratio of the CPU time per operation, servers and load generator
// together.
func (r Results) CPUTable() report.Titled {
	measured := func(o figures.Outcome) bool { return o.Summary.ServerCPU > 0 } // not the watch figure
	rows := r.sideBySide(measured, cpuCells, func(o, e figures.Outcome) string {
		return fmt.Sprintf("%.2f×", perOp(o, o.Summary.ServerCPU)/perOp(e, e.Summary.ServerCPU))
	})
	return report.Titled{Title: "CPU time", Table: report.Table{Columns: cpuColumns, Rows: rows},
		About: "Cores: CPU time over the figure's length. Per op: CPU time per successful operation. The servers are the target's processes; the load generator is this benchmark."}
}

func cpuCells(o figures.Outcome) []string {
	s := o.Summary
	return []string{fmt.Sprintf("%.2f cores", s.ServerCPU.Seconds()/s.Elapsed.Seconds()),
		micros(perOp(o, s.ServerCPU)), micros(perOp(o, s.LoadGenCPU))}
}

// micros formats nanoseconds as whole microseconds.
func micros(ns float64) string { return fmt.Sprintf("%.0f µs", ns/1e3) }

// perOp is cpu over o's successful operations, in nanoseconds.
func perOp(o figures.Outcome, cpu time.Duration) float64 {
	return float64(cpu) / float64(max(o.Summary.Ops, 1))
}
