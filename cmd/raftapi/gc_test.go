package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneGC checks that a serving node collects garbage at
// serveGCPercent, and leaves a target the environment set alone.
func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })

	t.Setenv("GOGC", "50")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("with GOGC set, tuneGC changed the GC percent to %d", got)
	}

	for _, empty := range []bool{false, true} {
		if empty {
			t.Setenv("GOGC", "") // the runtime reads an empty GOGC as unset
		} else {
			os.Unsetenv("GOGC") // t.Setenv restores it
		}
		tuneGC()
		if got := debug.SetGCPercent(100); got != serveGCPercent {
			t.Fatalf("GOGC empty=%v: GC percent = %d, want %d", empty, got, serveGCPercent)
		}
	}
}
