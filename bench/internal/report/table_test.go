package report

import "testing"

func TestMarkdown(t *testing.T) {
	got := Table{Columns: []string{"figure", "ops/s"}, Rows: [][]string{{"create", "1234"}, {"get, 64 clients", "5"}}}.Markdown()
	want := "" +
		"| figure          | ops/s |\n" +
		"| --------------- | ----: |\n" +
		"| create          |  1234 |\n" +
		"| get, 64 clients |     5 |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
