package report

import (
	"fmt"
	"html/template"
	"io"
	"sort"

	"github.com/raftapi/raftapi/chaos/history"
)

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"secs": func(ns int64) string { return fmt.Sprintf("%.1fs", float64(ns)/1e9) },
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>raftapi chaos run: {{if .S.Passed}}PASS{{else}}FAIL{{end}}</title>
<style>body{font-family:sans-serif;margin:20px;max-width:1100px} h2{margin-top:28px} pre{background:#f6f6f6;padding:8px;overflow-x:auto}
.pass{color:#2a9d4b}.fail{color:#d62728} .legend span{display:inline-block;margin-right:14px} .sw{display:inline-block;width:10px;height:10px;margin-right:4px}</style></head>
<body>
<h1>raftapi chaos run: {{if .S.Passed}}<span class="pass">PASS</span>{{else}}<span class="fail">FAIL</span>{{end}}</h1>
<pre>{{.Text}}</pre>
<h2>Nodes</h2>
<div class="legend">{{range $k, $v := .States}}<span><span class="sw" style="background:{{$v}}"></span>{{$k}}</span>{{end}}<span>black bar: the node a fault hit; blue bands: fault windows</span></div>
{{.Timeline}}
<h2>Faults</h2>
<table><tr><th align="left">fault</th><th align="left">nodes</th><th align="right">start</th><th align="right">end</th><th align="left">error</th></tr>
{{range .Faults}}<tr><td>{{.Name}}</td><td>{{.Targets}}</td><td align="right">{{secs .Start}}</td><td align="right">{{secs .End}}</td><td>{{.Error}}</td></tr>
{{end}}</table>
<h2>Latency over time</h2>
<div class="legend"><span><span class="sw" style="background:#2a9d4b"></span>ok</span><span><span class="sw" style="background:#e09b1a"></span>failed</span><span><span class="sw" style="background:#d62728"></span>unknown</span></div>
{{range .Plots}}<h3>{{.Kind}} ({{.N}})</h3>{{.SVG}}{{end}}
<p>Files: <a href="history.jsonl">history.jsonl</a>, <a href="results.json">results.json</a>, <a href="summary.txt">summary.txt</a>, node logs under <code>nodes/</code>.</p>
</body></html>
`))

type latencyPlot struct {
	Kind string
	N    int
	SVG  template.HTML
}

// maxPoints bounds the dots of one latency plot.
const maxPoints = 6000

// thin keeps every operation that did not succeed and an even sample of
// those that did, at most about max in all, so long runs keep a page a
// browser can draw.
func thin(ops []history.Op, max int) []history.Op {
	if len(ops) <= max {
		return ops
	}
	every := len(ops)/max + 1
	var out []history.Op
	for i, o := range ops {
		if o.Outcome != history.OK || i%every == 0 {
			out = append(out, o)
		}
	}
	return out
}

// writeHTML writes the report page.
func writeHTML(w io.Writer, h *history.History, s *Summary, text string) error {
	p := plot{width: 1060, left: 50, end: h.End}
	byKind := map[string][]history.Op{}
	for _, o := range h.Ops {
		k := string(o.Kind)
		if o.Kind == history.List {
			k = "list " + string(o.Mode)
		}
		if o.Resource != "" {
			k = o.Resource + " " + k
		}
		byKind[k] = append(byKind[k], o)
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var plots []latencyPlot
	for _, k := range kinds {
		// The SVG is built from numbers and HTML-escaped names only.
		plots = append(plots, latencyPlot{Kind: k, N: len(byKind[k]), SVG: template.HTML(latencySVG(p, thin(byKind[k], maxPoints), h.Faults))})
	}
	return page.Execute(w, map[string]any{
		"S": s, "Text": text, "States": stateColor, "Plots": plots, "Faults": h.Faults,
		"Timeline": template.HTML(timelineSVG(p, h.Nodes, h.Samples, h.Faults)),
	})
}
