package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
)

// Report is one benchmark run's results.
type Report struct {
	// Title heads the page: "make bench-cluster".
	Title string `json:"title"`
	// About lines say what ran where: the machine, the sizes, versions.
	About []string `json:"about"`
	Table Table    `json:"table"`
	// Notes follow the table: errors, what a figure ran out of.
	Notes []string `json:"notes,omitempty"`
	// More are further tables, after the notes.
	More []Titled `json:"more,omitempty"`
	// Sections hold the charts, in order.
	Sections []Section `json:"-"`
	// Data is the measurements in full, for report.json.
	Data any `json:"data"`
}

// Titled is a table with a title and a line saying how to read it.
type Titled struct {
	Title string `json:"title"`
	About string `json:"about,omitempty"`
	Table Table  `json:"table"`
}

// Section is a titled group of charts.
type Section struct {
	Title  string
	Charts []template.HTML
}

// Markdown is the table with the about lines before it and the notes
// after, as printed and saved in report.md.
func (r Report) Markdown() string {
	s := "## " + r.Title + "\n\n"
	for _, a := range r.About {
		s += a + "  \n"
	}
	s += "\n" + r.Table.Markdown()
	if len(r.Notes) > 0 {
		s += "\n"
		for _, n := range r.Notes {
			s += "- " + n + "\n"
		}
	}
	for _, t := range r.More {
		s += "\n### " + t.Title + "\n\n"
		if t.About != "" {
			s += t.About + "\n\n"
		}
		s += t.Table.Markdown()
	}
	return s
}

// Write saves report.md, report.json and report.html in dir.
func (r Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode: %w", err)
	}
	page, err := r.html()
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"report.md": []byte(r.Markdown()), "report.json": js, "report.html": page} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}
