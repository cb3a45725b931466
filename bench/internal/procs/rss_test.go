package procs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMemoryOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status")
	status := "Name:\traftapi\nVmPeak:\t  999 kB\nVmRSS:\t  123456 kB\nRssAnon:\t   23456 kB\nRssFile:\t  100000 kB\n"
	if err := os.WriteFile(path, []byte(status), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := memoryOf(path)
	want := Memory{RSS: 123456 * 1024, Anon: 23456 * 1024, File: 100000 * 1024}
	if err != nil || got != want {
		t.Errorf("memoryOf = %+v, %v; want %+v", got, err, want)
	}
}

func TestMemoryOfSelf(t *testing.T) {
	got, err := memoryOf("/proc/self/status")
	if err != nil || got.RSS <= 0 || got.Anon <= 0 {
		t.Errorf("memoryOf(self) = %+v, %v", got, err)
	}
}
