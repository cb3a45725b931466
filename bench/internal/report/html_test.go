package report

import (
	"strings"
	"testing"
)

func TestHTMLTables(t *testing.T) {
	r := Report{Title: "t",
		Table: Table{Columns: []string{"figure", "ops/s"}, Rows: [][]string{{"create", "100"}}},
		More: []Titled{{Title: "CPU time", About: "per op",
			Table: Table{Columns: []string{"figure", "cores"}, Rows: [][]string{{"update", "1.50"}}}}}}
	b, err := r.html()
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		`<td class="l">create</td><td>100</td>`,
		`<h2>CPU time</h2><p class="about">per op</p>`,
		`<td class="l">update</td><td>1.50</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q:\n%s", want, page)
		}
	}
	if n := strings.Count(page, "<table>"); n != 2 {
		t.Errorf("report.html has %d tables, want 2", n)
	}
}
