package procs

import (
	"os"
	"strings"
)

// Tail returns the last max bytes of the file at path, trimmed, for
// error messages about a process that logged there; "" when it cannot
// be read.
func Tail(path string, max int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return strings.TrimSpace(string(b))
}
