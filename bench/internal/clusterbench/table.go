package clusterbench

import (
	"fmt"
	"slices"
	"time"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/report"
)

// Table sets the targets' outcomes side by side, a row per figure:
// raftapi's cells, each compared target's, then raftapi's ratio to each.
// The ratio is raftapi's throughput over the other's; for the watch
// figure, whose throughput is the paced writes' events, it is the ratio
// of the p99 delivery latencies instead, marked so.
func (r Results) Table() report.Table {
	all := func(figures.Outcome) bool { return true }
	return report.Table{Columns: r.columns([]string{"ops/s", "p50", "p99"}, ""), Rows: r.sideBySide(all, cells, ratio)}
}

// columns are the figure's column, then each target's cells — the
// first headed by the target's name — then a ratio column per compared
// target headed raftapi/name and suffix.
func (r Results) columns(cells []string, suffix string) []string {
	out := append([]string{"figure", "raftapi " + cells[0]}, cells[1:]...)
	for _, outs := range r.compared() {
		out = append(append(out, outs[0].Target+" "+cells[0]), cells[1:]...)
	}
	for _, outs := range r.compared() {
		out = append(out, "raftapi/"+outs[0].Target+suffix)
	}
	return out
}

// compared are the outcomes of the targets raftapi is compared with, in
// table order: etcd, kube-apiserver, those that ran.
func (r Results) compared() [][]figures.Outcome {
	var out [][]figures.Outcome
	for _, outs := range [][]figures.Outcome{r.Etcd, r.KubeAPIServer} {
		if len(outs) > 0 {
			out = append(out, outs)
		}
	}
	return out
}

// all are every target's outcomes, raftapi's first.
func (r Results) all() []figures.Outcome {
	return slices.Concat(r.Raftapi, r.Etcd, r.KubeAPIServer)
}

// sideBySide makes a row per raftapi outcome that keep accepts: the
// figure, its cells, each compared target's cells of the same figure,
// and the ratio to each, dashes where a target has no such outcome.
func (r Results) sideBySide(keep func(figures.Outcome) bool, cells func(figures.Outcome) []string, ratio func(r, e figures.Outcome) string) [][]string {
	var others []map[string]figures.Outcome
	for _, outs := range r.compared() {
		byFigure := map[string]figures.Outcome{}
		for _, o := range outs {
			if keep(o) {
				byFigure[o.Figure] = o
			}
		}
		others = append(others, byFigure)
	}
	var rows [][]string
	for _, o := range r.Raftapi {
		if !keep(o) {
			continue
		}
		own := cells(o)
		row := append([]string{o.Figure}, own...)
		var ratios []string
		for _, byFigure := range others {
			e, ok := byFigure[o.Figure]
			if !ok {
				row = append(row, slices.Repeat([]string{"–"}, len(own))...)
				ratios = append(ratios, "–")
				continue
			}
			row = append(row, cells(e)...)
			ratios = append(ratios, ratio(o, e))
		}
		rows = append(rows, append(row, ratios...))
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
	for _, o := range r.all() {
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
	for _, o := range r.all() {
		for _, p := range o.Problems() {
			out = append(out, fmt.Sprintf("%s, %s: %s", o.Target, o.Figure, p))
		}
	}
	return out
}

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
	cols := r.columns([]string{"servers", "per op", "load generator"}, " per op")
	return report.Titled{Title: "CPU time", Table: report.Table{Columns: cols, Rows: rows},
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
