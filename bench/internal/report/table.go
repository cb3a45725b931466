package report

import (
	"strings"
	"unicode/utf8"
)

// Table is a table of text cells. The first column is left-aligned, the
// others right-aligned, but for the last LeftTail columns (text, not
// numbers).
type Table struct {
	Columns  []string   `json:"columns"`
	Rows     [][]string `json:"rows"`
	LeftTail int        `json:"-"`
}

// Left reports whether column i is left-aligned.
func (t Table) Left(i int) bool { return i == 0 || i >= len(t.Columns)-t.LeftTail }

// Markdown renders the table as a GitHub-flavoured markdown table, its
// columns padded to line up in plain text too.
func (t Table) Markdown() string {
	width := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		width[i] = max(utf8.RuneCountInString(c), 3)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	t.line(&b, t.Columns, width)
	sep := make([]string, len(width))
	for i, w := range width {
		if t.Left(i) {
			sep[i] = strings.Repeat("-", w)
		} else {
			sep[i] = strings.Repeat("-", w-1) + ":"
		}
	}
	b.WriteString("|" + " " + strings.Join(sep, " | ") + " |\n")
	for _, r := range t.Rows {
		t.line(&b, r, width)
	}
	return b.String()
}

func (t Table) line(b *strings.Builder, cells []string, width []int) {
	b.WriteString("|")
	for i, w := range width {
		c := ""
		if i < len(cells) {
			c = cells[i]
		}
		pad := strings.Repeat(" ", w-utf8.RuneCountInString(c))
		if t.Left(i) {
			b.WriteString(" " + c + pad + " |")
		} else {
			b.WriteString(" " + pad + c + " |")
		}
	}
	b.WriteString("\n")
}
