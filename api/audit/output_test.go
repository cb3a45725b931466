package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// logFiles lists the log's directory.
func logFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// writeEventLines writes n JSON lines of about size bytes each through a
// backend opened from opts.
func writeEventLines(t *testing.T, opts Options, n, size int) {
	t.Helper()
	b, err := openBackend(opts.withDefaults(), discard())
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", size)
	for i := range n {
		line := fmt.Appendf(nil, `{"n":%d,"pad":%q}`+"\n", i, pad)
		if !b.write(line) {
			t.Fatalf("line %d not written", i)
		}
	}
	if err := b.close(); err != nil {
		t.Fatal(err)
	}
}

// TestRotation: with --audit-log-maxsize the log rotates before it would
// pass the size, never splitting a line; --audit-log-maxbackup bounds the
// rotated files and --audit-log-maxage removes old ones.
func TestRotation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "audit-2001-02-03T04-05-06.000.log")
	if err := os.WriteFile(old, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := Options{LogPath: filepath.Join(dir, "audit.log"), LogMaxSize: 1, LogMaxBackups: 2, LogMaxAge: 1}
	writeEventLines(t, opts, 60, 100<<10) // about 6 MB: several rotations
	deadline := time.Now().Add(testTimeout)
	for {
		names := logFiles(t, dir)
		if len(names) == 3 && !slices.Contains(names, filepath.Base(old)) {
			break // the log and two backups; the old file removed
		}
		if time.Now().After(deadline) {
			t.Fatalf("files %v, want audit.log and two backups", names)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, name := range logFiles(t, dir) {
		data := mustRead(t, filepath.Join(dir, name))
		if len(data) > 1<<20 {
			t.Errorf("%s has %d bytes, more than --audit-log-maxsize", name, len(data))
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("%s: a broken line", name)
			}
		}
	}
	st, err := os.Stat(opts.LogPath)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log file mode %v, %v; want 0600", st.Mode(), err)
	}
}

// TestCompress: --audit-log-compress gzips the rotated files.
func TestCompress(t *testing.T) {
	dir := t.TempDir()
	opts := Options{LogPath: filepath.Join(dir, "audit.log"), LogMaxSize: 1, LogCompress: true}
	writeEventLines(t, opts, 15, 100<<10)
	deadline := time.Now().Add(testTimeout)
	for !slices.ContainsFunc(logFiles(t, dir), func(n string) bool { return strings.HasSuffix(n, ".log.gz") }) {
		if time.Now().After(deadline) {
			t.Fatalf("files %v, want a .log.gz backup", logFiles(t, dir))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoRotation: --audit-log-maxsize 0 appends to the file forever.
func TestNoRotation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	opts := Options{LogPath: filepath.Join(dir, "audit.log")}
	writeEventLines(t, opts, 15, 100<<10)
	writeEventLines(t, opts, 1, 10)
	if names := logFiles(t, dir); len(names) != 1 {
		t.Errorf("files %v, want the log only", names)
	}
	if lines := bytes.Count(mustRead(t, opts.LogPath), []byte("\n")); lines != 16 {
		t.Errorf("%d lines, want 16", lines)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, %v; want 0700", st.Mode(), err)
	}
}
