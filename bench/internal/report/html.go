package report

import (
	"bytes"
	"fmt"
	"html/template"
)

// page is report.html: everything inline, nothing fetched.
var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 24px; color: #222; }
table { border-collapse: collapse; margin: 12px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; }
td { text-align: right; font-variant-numeric: tabular-nums; }
td.l, th { text-align: left; }
th { background: #f2f2f2; }
.about { color: #555; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
</style></head><body>
<h1>{{.Title}}</h1>
<p class="about">{{range .About}}{{.}}<br>{{end}}</p>
{{template "table" .Table}}
{{if .Notes}}<ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{range .More}}<h2>{{.Title}}</h2>{{if .About}}<p class="about">{{.About}}</p>{{end}}
{{template "table" .Table}}
{{end}}{{range .Sections}}<h2>{{.Title}}</h2>
<div class="charts">{{range .Charts}}{{.}}{{end}}</div>
{{end}}</body></html>
{{define "table"}}{{$t := .}}<table><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if $t.Left $i}} class="l"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>{{end}}`))

func (r Report) html() ([]byte, error) {
	var b bytes.Buffer
	if err := page.Execute(&b, r); err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	return b.Bytes(), nil
}
