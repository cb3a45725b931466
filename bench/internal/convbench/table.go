package convbench

import (
	"fmt"
	"html/template"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/report"
)

// columns are the table's columns.
var columns = []string{"figure", "storage ops/s", "p50", "p99", "None ops/s", "p50", "p99", "None/storage",
	"policy ops/s", "p50", "p99", "policy/storage"}

// Table sets the ways side by side, a row per figure. Each ratio is the
// converting version's throughput over the storage version's; the watch
// figure's throughput is paced by its writes, so its ratio also gives the
// p99 delivery latencies' (converting over storage).
func (r Results) Table() report.Table {
	t := report.Table{Columns: columns}
	for i, s := range r.Outcomes[Storage] {
		row := append([]string{s.Figure}, cells(s)...)
		for _, way := range []string{None, Declarative} {
			if i >= len(r.Outcomes[way]) {
				row = append(row, "–", "–", "–", "–")
				continue
			}
			o := r.Outcomes[way][i]
			row = append(append(row, cells(o)...), ratio(o, s))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func cells(o figures.Outcome) []string {
	s := o.Summary
	return []string{report.Rate(s.OpsPerSec), report.Duration(s.P50), report.Duration(s.P99)}
}

// ratio is o's throughput over storage's, and for a watch figure the
// ratio of the p99 latencies too.
func ratio(o, storage figures.Outcome) string {
	if storage.Summary.OpsPerSec <= 0 {
		return "–"
	}
	out := fmt.Sprintf("%.2f×", o.Summary.OpsPerSec/storage.Summary.OpsPerSec)
	if o.Watch != nil && storage.Summary.P99 > 0 {
		out += fmt.Sprintf(" (p99 %.2f×)", float64(o.Summary.P99)/float64(storage.Summary.P99))
	}
	return out
}

// all is every outcome, way after way; allRounds every round's.
func (r Results) all() []figures.Outcome {
	var out []figures.Outcome
	for _, w := range r.Ways {
		out = append(out, r.Outcomes[w]...)
	}
	return out
}

func (r Results) allRounds() []figures.Outcome {
	if len(r.Rounds) == 0 {
		return r.all()
	}
	var out []figures.Outcome
	for _, w := range r.Ways {
		out = append(out, r.Rounds[w]...)
	}
	return out
}

// Notes are the outcomes' notes, then every round's problems, one line
// each.
func (r Results) Notes() []string {
	var out []string
	for _, o := range r.all() {
		if o.Note != "" {
			out = append(out, fmt.Sprintf("%s, %s: %s", o.Target, o.Figure, o.Note))
		}
	}
	for _, o := range r.allRounds() {
		for _, p := range o.Problems() {
			out = append(out, fmt.Sprintf("FAILED %s, %s: %s", o.Target, o.Figure, p))
		}
	}
	return out
}

// Problems lists every round's problems: a run with any failed.
func (r Results) Problems() []string {
	var out []string
	for _, o := range r.allRounds() {
		for _, p := range o.Problems() {
			out = append(out, fmt.Sprintf("%s, %s: %s", o.Target, o.Figure, p))
		}
	}
	return out
}

// Sections is the throughput of every figure through each way.
func (r Results) Sections() []report.Section {
	bars := report.BarChart{Title: "Throughput per figure (log scale)", XLabel: "ops/s", LogX: true}
	for _, o := range r.Outcomes[Storage] {
		bars.Labels = append(bars.Labels, o.Figure)
	}
	for _, w := range r.Ways {
		b := report.Bars{Name: w}
		for _, o := range r.Outcomes[w] {
			b.Values = append(b.Values, o.Summary.OpsPerSec)
		}
		bars.Bars = append(bars.Bars, b)
	}
	return []report.Section{{Title: "Throughput", Charts: []template.HTML{bars.SVG()}}}
}
