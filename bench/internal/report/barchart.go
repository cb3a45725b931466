package report

import (
	"fmt"
	"html/template"
	"strings"
)

// Bars is one series of a BarChart: a value per row.
type Bars struct {
	Name   string
	Values []float64
}

// BarChart draws horizontal bars, a row per label and a bar per series
// in each row, for comparing figures side by side.
type BarChart struct {
	Title  string
	XLabel string
	Labels []string
	Bars   []Bars
	// LogX draws the value axis by decades.
	LogX bool
}

// SVG draws the chart.
func (c BarChart) SVG() template.HTML {
	const barH, gap = 9, 8
	rowH := barH*len(c.Bars) + gap
	f := frame{width: 760, left: 230, right: 20, top: 42, bottom: 34}
	f.height = f.top + f.bottom + rowH*len(c.Labels)
	var lo, hi float64
	for _, s := range c.Bars {
		for _, v := range s.Values {
			if v > 0 && (lo == 0 || v < lo) {
				lo = v
			}
			hi = max(hi, v)
		}
	}
	xa := newAxis(lo, hi, c.LogX)
	var b strings.Builder
	f.open(&b, c.Title)
	for _, v := range xa.ticks() {
		x := float64(f.left) + f.plotW()*xa.frac(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e3e3e3"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			x, f.top, x, f.height-f.bottom, x, f.height-f.bottom+14, num(v))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" fill="#555">%s</text>`, f.width-f.right, f.height-4, esc(c.XLabel))
	var names, colors []string
	for i, s := range c.Bars {
		names, colors = append(names, s.Name), append(colors, color(i))
		for row, v := range s.Values {
			if v <= 0 {
				continue
			}
			y := f.top + row*rowH + gap/2 + i*barH
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect>`,
				f.left, y, f.plotW()*xa.frac(v), barH-1, color(i), esc(s.Name), num(v))
		}
	}
	for row, l := range c.Labels {
		y := f.top + row*rowH + rowH/2 + 4
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`, f.left-6, y, esc(l))
	}
	f.legend(&b, names, colors)
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built from numbers and escaped text only
}
