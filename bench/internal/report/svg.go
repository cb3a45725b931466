package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// palette colours the series of a chart in order.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"}

func color(i int) string { return palette[i%len(palette)] }

// frame is a chart's plot area inside its SVG canvas.
type frame struct {
	width, height            int
	left, right, top, bottom int
}

func (f frame) plotW() float64 { return float64(f.width - f.left - f.right) }
func (f frame) plotH() float64 { return float64(f.height - f.top - f.bottom) }

// open starts the SVG element with its title.
func (f frame) open(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`,
		f.width, f.height, f.width, f.height)
	fmt.Fprintf(b, `<text x="%d" y="16" font-size="13" font-weight="bold">%s</text>`, f.left, esc(title))
}

// legend writes the series' names and colours in a row under the title.
func (f frame) legend(b *strings.Builder, names, colors []string) {
	x := float64(f.left)
	for i, name := range names {
		fmt.Fprintf(b, `<rect x="%.1f" y="23" width="12" height="10" fill="%s"/><text x="%.1f" y="32">%s</text>`,
			x, colors[i], x+16, esc(name))
		x += float64(len(name)*7 + 30)
	}
}

// axis maps values to one dimension of the plot, linearly or by decades.
type axis struct {
	lo, hi float64
	log    bool
}

// newAxis spans values from lo (0 for a linear axis) to hi, with round
// ends.
func newAxis(vmin, vmax float64, log bool) axis {
	if log {
		if vmax <= 0 {
			vmin, vmax = 1, 10
		}
		if vmin <= 0 {
			vmin = vmax / 1000
		}
		lo := math.Pow(10, math.Floor(math.Log10(vmin)))
		hi := math.Pow(10, math.Ceil(math.Log10(vmax)))
		if hi <= lo {
			hi = lo * 10
		}
		return axis{lo: lo, hi: hi, log: true}
	}
	if vmax <= 0 {
		vmax = 1
	}
	step := niceStep(vmax / 5)
	return axis{lo: 0, hi: math.Ceil(vmax/step) * step}
}

// frac is where v lies between the axis's ends, 0 to 1.
func (a axis) frac(v float64) float64 {
	if a.log {
		v = math.Max(v, a.lo)
		return (math.Log10(v) - math.Log10(a.lo)) / (math.Log10(a.hi) - math.Log10(a.lo))
	}
	return (v - a.lo) / (a.hi - a.lo)
}

// ticks are the values to label: decades, or about five round steps.
func (a axis) ticks() []float64 {
	var out []float64
	if a.log {
		for v := a.lo; v <= a.hi*1.0001; v *= 10 {
			out = append(out, v)
		}
		return out
	}
	step := niceStep(a.hi / 5)
	for v := a.lo; v <= a.hi*1.0001; v += step {
		out = append(out, v)
	}
	return out
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	switch f := x / p; {
	case f <= 1:
		return p
	case f <= 2:
		return 2 * p
	case f <= 5:
		return 5 * p
	default:
		return 10 * p
	}
}

// num formats an axis label: 1.5k, 20, 0.25.
func num(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func esc(s string) string { return html.EscapeString(s) }
