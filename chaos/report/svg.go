package report

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/raftapi/raftapi/chaos/history"
)

// plot is the geometry shared by the pictures: time runs left to right
// over the whole run.
type plot struct {
	width, left int
	end         int64 // the run's length in nanoseconds
}

func (p plot) x(t int64) float64 {
	if p.end <= 0 {
		return float64(p.left)
	}
	return float64(p.left) + float64(p.width-p.left-10)*float64(t)/float64(p.end)
}

var outcomeColor = map[history.Outcome]string{history.OK: "#2a9d4b", history.Failed: "#e09b1a", history.Unknown: "#d62728"}

// faultBands shades each fault window from top to bottom of a picture.
func (p plot) faultBands(b *strings.Builder, faults []history.Fault, top, bottom int) {
	for _, f := range faults {
		x0, x1 := p.x(f.Start), p.x(f.End)
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#9aa7d8" opacity="0.25"><title>%s %v</title></rect>`,
			x0, top, math.Max(x1-x0, 1), bottom-top, html.EscapeString(f.Name), f.Targets)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" font-size="9" fill="#445">%s</text>`, x0+1, top+9, html.EscapeString(f.Name))
	}
}

// timeAxis draws seconds along the bottom.
func (p plot) timeAxis(b *strings.Builder, y int) {
	secs := p.end / 1e9
	step := int64(max(1, secs/10))
	for s := int64(0); s <= secs; s += step {
		x := p.x(s * 1e9)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/><text x="%.1f" y="%d" font-size="10" text-anchor="middle">%ds</text>`,
			x, y, x, y+4, x, y+15, s)
	}
}

// latencySVG plots each operation's latency (log scale) at its invoke
// time, colored by outcome, over the fault windows.
func latencySVG(p plot, ops []history.Op, faults []history.Fault) string {
	const h, top, bottom = 230, 5, 200
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%d" height="%d" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif">`, p.width, h)
	p.faultBands(&b, faults, top, bottom)
	lo, hi := math.Log10(0.5), math.Log10(20000.0) // ms
	y := func(ms float64) float64 {
		v := math.Log10(math.Max(ms, 0.5))
		return float64(bottom) - (math.Min(v, hi)-lo)/(hi-lo)*float64(bottom-top)
	}
	for _, ms := range []float64{1, 10, 100, 1000, 10000} {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" font-size="10" text-anchor="end">%s</text>`,
			p.left, y(ms), p.width-10, y(ms), p.left-4, y(ms)+3, msLabel(ms))
	}
	for _, o := range ops {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="1.6" fill="%s"/>`, p.x(o.Invoke), y(float64(o.Latency())/1e6), outcomeColor[o.Outcome])
	}
	p.timeAxis(&b, bottom)
	b.WriteString(`</svg>`)
	return b.String()
}

func msLabel(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%gs", ms/1000)
	}
	return fmt.Sprintf("%gms", ms)
}

var stateColor = map[string]string{"Leader": "#1f77b4", "Follower": "#8fc1e3", "Candidate": "#f2c14e",
	"down": "#d62728", "paused": "#9467bd", "unreachable": "#f08080", "Shutdown": "#777"}

// timelineSVG draws one row per node colored by the role its status
// samples reported, and the fault windows with their targets.
func timelineSVG(p plot, nodes []string, samples []history.Sample, faults []history.Fault) string {
	const row = 22
	h := row*(len(nodes)+1) + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%d" height="%d" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif">`, p.width, h)
	p.faultBands(&b, faults, 0, row*(len(nodes)+1))
	for i, n := range nodes {
		y := row*i + row
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text>`, p.left-4, y+14, html.EscapeString(n))
		nodeRow(&b, p, n, samples, y, row-4)
		for _, f := range faults {
			if contains(f.Targets, n) {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="3" fill="#000"/>`, p.x(f.Start), y+row-5, math.Max(p.x(f.End)-p.x(f.Start), 1))
			}
		}
	}
	p.timeAxis(&b, row*(len(nodes)+1))
	b.WriteString(`</svg>`)
	return b.String()
}

// nodeRow draws node n's samples as colored segments, each lasting to the
// node's next sample.
func nodeRow(b *strings.Builder, p plot, n string, samples []history.Sample, y, height int) {
	var mine []history.Sample
	for _, s := range samples {
		if s.Node == n {
			mine = append(mine, s)
		}
	}
	for i, s := range mine {
		end := p.end
		if i+1 < len(mine) {
			end = mine[i+1].Time
		}
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s term %d leader %s applied %d</title></rect>`,
			p.x(s.Time), y, math.Max(p.x(end)-p.x(s.Time), 0.5), height, stateColor[s.State], s.State, s.Term, s.Leader, s.Applied)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
