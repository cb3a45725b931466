package scalebench

import (
	"html/template"
	"strings"
	"time"

	"github.com/raftapi/raftapi/bench/internal/load"
	"github.com/raftapi/raftapi/bench/internal/report"
)

// Sections are the report's charts: the watch fan-out's delivery latency
// and rate, the loads' rates, the paged list's page latency and the
// memory against the data held.
func (r Results) Sections() []report.Section {
	var out []report.Section
	if o := r.Watch; o != nil {
		out = append(out, report.Section{Title: o.Figure, Charts: []template.HTML{
			latency("Delivery latency over time (by write time)", o.Series).SVG(),
			rate("Events delivered per second", "events/s", o.Series).SVG()}})
	}
	if len(r.Loads) > 0 {
		c := report.LineChart{Title: "Load rate", XLabel: "seconds into the load", YLabel: "objects/s"}
		for _, l := range r.Loads {
			var pts []report.Point
			for _, p := range l.Rate {
				pts = append(pts, report.Point{X: p.At.Seconds(), Y: p.PerSecond})
			}
			c.Lines = append(c.Lines, report.Line{Name: l.Namespace, Points: pts})
		}
		out = append(out, report.Section{Title: "Loads", Charts: []template.HTML{c.SVG()}})
	}
	if p := r.Paged; p != nil {
		out = append(out, report.Section{Title: "Paged list", Charts: []template.HTML{
			latency("Page latency over time", p.Series).SVG(), rate("Pages per second", "pages/s", p.Series).SVG()}})
	}
	if len(r.Memory) > 0 {
		b := report.BarChart{Title: "Resident memory and data held", XLabel: "MiB"}
		rss, anon, held := report.Bars{Name: "RSS"}, report.Bars{Name: "RSS anon"}, report.Bars{Name: "objects held"}
		for _, m := range r.Memory {
			b.Labels = append(b.Labels, m.Node+", "+strings.ToLower(m.Role)+" ("+m.When+")")
			rss.Values = append(rss.Values, float64(m.RSS)/(1<<20))
			anon.Values = append(anon.Values, float64(m.Anon)/(1<<20))
			held.Values = append(held.Values, float64(m.Held)/(1<<20))
		}
		b.Bars = []report.Bars{rss, anon, held}
		out = append(out, report.Section{Title: "Memory", Charts: []template.HTML{b.SVG()}})
	}
	return out
}

func latency(title string, series []load.Bucket) report.LineChart {
	var p50, p99 []report.Point
	for _, b := range series {
		p50 = append(p50, report.Point{X: b.At.Seconds(), Y: ms(b.P50)})
		p99 = append(p99, report.Point{X: b.At.Seconds(), Y: ms(b.P99)})
	}
	return report.LineChart{Title: title, XLabel: "seconds", YLabel: "ms", LogY: true,
		Lines: []report.Line{{Name: "p50", Color: "#8fc1e3", Points: p50}, {Name: "p99", Color: "#1f77b4", Points: p99}}}
}

func rate(title, unit string, series []load.Bucket) report.LineChart {
	var pts []report.Point
	for _, b := range series {
		pts = append(pts, report.Point{X: b.At.Seconds(), Y: b.OpsPerSec})
	}
	return report.LineChart{Title: title, XLabel: "seconds", YLabel: unit, Lines: []report.Line{{Name: unit, Points: pts}}}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
