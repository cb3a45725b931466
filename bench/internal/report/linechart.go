package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// Point is one point of a line.
type Point struct{ X, Y float64 }

// Line is one series of a LineChart.
type Line struct {
	Name string
	// Color is an SVG colour; empty takes the palette's next.
	Color  string
	Points []Point
}

// LineChart plots lines over a shared X axis.
type LineChart struct {
	Title          string
	XLabel, YLabel string
	// LogY draws the Y axis by decades (latencies).
	LogY  bool
	Lines []Line
}

// SVG draws the chart.
func (c LineChart) SVG() template.HTML {
	f := frame{width: 560, height: 260, left: 56, right: 14, top: 42, bottom: 38}
	xmin, xmax, ymin, ymax := c.bounds()
	xa := axis{lo: xmin, hi: xmax}
	if xmax <= xmin {
		xa.hi = xmin + 1
	}
	ya := newAxis(ymin, ymax, c.LogY)
	var b strings.Builder
	f.open(&b, c.Title)
	for _, v := range ya.ticks() {
		y := float64(f.top) + f.plotH()*(1-ya.frac(v))
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e3e3e3"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`,
			f.left, y, f.width-f.right, y, f.left-4, y+4, num(v))
	}
	for _, v := range xa.linearTicks() {
		x := float64(f.left) + f.plotW()*xa.frac(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			x, f.height-f.bottom, x, f.height-f.bottom+4, x, f.height-f.bottom+16, num(v))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" fill="#555">%s</text>`, f.width-f.right, f.height-4, esc(c.XLabel))
	fmt.Fprintf(&b, `<text transform="rotate(-90)" x="%.0f" y="12" text-anchor="middle" fill="#555">%s</text>`,
		-(float64(f.top) + f.plotH()/2), esc(c.YLabel))
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`, f.left, f.top, f.plotW(), f.plotH())
	var names, colors []string
	for i, l := range c.Lines {
		if l.Color == "" {
			l.Color = color(i)
		}
		names, colors = append(names, l.Name), append(colors, l.Color)
		var pts []string
		for _, p := range l.Points {
			if c.LogY && p.Y <= 0 {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", float64(f.left)+f.plotW()*xa.frac(p.X), float64(f.top)+f.plotH()*(1-ya.frac(p.Y))))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`, l.Color, strings.Join(pts, " "))
	}
	f.legend(&b, names, colors)
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built from numbers and escaped text only
}

// bounds are the extremes of the points (positive Y only on a log axis).
func (c LineChart) bounds() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), 0
	for _, l := range c.Lines {
		for _, p := range l.Points {
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
			if p.Y > 0 || !c.LogY {
				ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
			}
		}
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax = 0, 1
	}
	if math.IsInf(ymin, 1) {
		ymin = 0
	}
	return xmin, xmax, ymin, ymax
}

// linearTicks are about five round values from lo to hi.
func (a axis) linearTicks() []float64 {
	step := niceStep((a.hi - a.lo) / 5)
	var out []float64
	for v := math.Ceil(a.lo/step) * step; v <= a.hi+step/1000; v += step {
		out = append(out, v)
	}
	return out
}
