package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/raftapi/raftapi/chaos/history"
)

// Write writes the run's report into dir: history.jsonl, results.json,
// summary.txt, index.html and the checkers' artifacts.
func Write(dir string, h *history.History, s *Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var hist bytes.Buffer
	if err := history.Write(&hist, h); err != nil {
		return err
	}
	res, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("report: results: %w", err)
	}
	var text bytes.Buffer
	s.WriteText(&text)
	var page bytes.Buffer
	if err := writeHTML(&page, h, s, text.String()); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	files := map[string][]byte{"history.jsonl": hist.Bytes(), "results.json": res, "summary.txt": text.Bytes(), "index.html": page.Bytes()}
	for _, r := range s.Results {
		for name, b := range r.Artifacts {
			files[name] = b
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}
