package procs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRSSOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(path, []byte("Name:\traftapi\nVmPeak:\t  999 kB\nVmRSS:\t  123456 kB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := rssOf(path)
	if err != nil || got != 123456*1024 {
		t.Errorf("rssOf = %d, %v; want %d", got, err, 123456*1024)
	}
}

func TestRSSOfSelf(t *testing.T) {
	got, err := rssOf("/proc/self/status")
	if err != nil || got <= 0 {
		t.Errorf("rssOf(self) = %d, %v", got, err)
	}
}
