package clusterbench

import (
	"html/template"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/report"
)

// Sections are the report's charts: throughput of every figure side by
// side, then each figure's latency and throughput over time.
func (r Results) Sections() []report.Section {
	targets := r.targets()
	bars := report.BarChart{Title: "Throughput per figure (log scale)", XLabel: "ops/s", LogX: true}
	for _, o := range r.Raftapi {
		bars.Labels = append(bars.Labels, o.Figure)
	}
	for _, t := range targets {
		b := report.Bars{Name: t.name}
		for _, o := range r.Raftapi {
			b.Values = append(b.Values, t.byFigure[o.Figure].Summary.OpsPerSec)
		}
		bars.Bars = append(bars.Bars, b)
	}
	out := []report.Section{{Title: "Throughput", Charts: []template.HTML{bars.SVG()}}}
	for _, o := range r.Raftapi {
		out = append(out, report.Section{Title: o.Figure, Charts: []template.HTML{
			latencyChart(o.Figure, targets).SVG(), throughputChart(o.Figure, targets).SVG()}})
	}
	return out
}

// named is one target's outcomes by figure, and its colours in the
// charts: the bar chart's (the palette's in order) and a lighter one.
type named struct {
	name        string
	byFigure    map[string]figures.Outcome
	dark, light string
}

// shades are the targets' colours, in order.
var shades = [][2]string{{"#1f77b4", "#8fc1e3"}, {"#d62728", "#f2a09f"}, {"#2ca02c", "#98df8a"}}

func (r Results) targets() []named {
	var out []named
	for _, outs := range append([][]figures.Outcome{r.Raftapi}, r.compared()...) {
		if len(outs) == 0 {
			continue
		}
		sh := shades[len(out)%len(shades)]
		t := named{name: outs[0].Target, byFigure: map[string]figures.Outcome{}, dark: sh[0], light: sh[1]}
		for _, o := range outs {
			t.byFigure[o.Figure] = o
		}
		out = append(out, t)
	}
	return out
}

// latencyChart plots p50 and p99 per time bucket, per target.
func latencyChart(figure string, targets []named) report.LineChart {
	c := report.LineChart{Title: "Latency over time", XLabel: "seconds into the figure", YLabel: "ms", LogY: true}
	for _, t := range targets {
		var p50, p99 []report.Point
		for _, b := range t.byFigure[figure].Series {
			x := b.At.Seconds()
			p50 = append(p50, report.Point{X: x, Y: ms(b.P50)})
			p99 = append(p99, report.Point{X: x, Y: ms(b.P99)})
		}
		c.Lines = append(c.Lines, report.Line{Name: t.name + " p50", Color: t.light, Points: p50},
			report.Line{Name: t.name + " p99", Color: t.dark, Points: p99})
	}
	return c
}

// throughputChart plots operations per second per time bucket, per target.
func throughputChart(figure string, targets []named) report.LineChart {
	c := report.LineChart{Title: "Throughput over time", XLabel: "seconds into the figure", YLabel: "ops/s"}
	for _, t := range targets {
		var pts []report.Point
		for _, b := range t.byFigure[figure].Series {
			pts = append(pts, report.Point{X: b.At.Seconds(), Y: b.OpsPerSec})
		}
		c.Lines = append(c.Lines, report.Line{Name: t.name, Color: t.dark, Points: pts})
	}
	return c
}
