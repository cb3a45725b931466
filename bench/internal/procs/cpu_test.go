package procs

import (
	"path/filepath"
	"testing"
	"time"
)

func TestCPUTimeOf(t *testing.T) {
	// utime 250 and stime 50 ticks; the command name holds a space and a
	// parenthesis.
	stat := "4242 (raft api) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 100 2000000 500 18446744073709551615"
	got, err := cpuTimeOf(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * time.Second; got != want {
		t.Errorf("cpuTimeOf = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "4242 (x) S 1 2", "4242 (x) S 1 2 3 4 5 6 7 8 9 10 ab 50 0"} {
		if _, err := cpuTimeOf(bad); err == nil {
			t.Errorf("cpuTimeOf(%q) succeeded", bad)
		}
	}
}

func TestSelfCPUTimeAdvances(t *testing.T) {
	before := SelfCPUTime()
	deadline := time.Now().Add(10 * time.Second)
	for SelfCPUTime() == before {
		if time.Now().After(deadline) {
			t.Fatal("SelfCPUTime did not advance while this test spun for 10s")
		}
		for i := 0; i < 1e6; i++ {
			_ = i * i
		}
	}
}

// TestGroupCPUTimeKeepsExited checks that a group's CPU time does not go
// back when a process exits: it then counts what the process used.
func TestGroupCPUTimeKeepsExited(t *testing.T) {
	var g Group
	defer g.StopAll()
	p, err := g.Start("spin", filepath.Join(t.TempDir(), "log"), []string{"sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"})
	if err != nil {
		t.Fatal(err)
	}
	var last time.Duration
	deadline := time.Now().Add(60 * time.Second)
	for p.Running() {
		if time.Now().After(deadline) {
			t.Fatal("the spinning shell did not exit within 60s")
		}
		if d := g.CPUTime(); d > last {
			last = d
		}
		time.Sleep(10 * time.Millisecond) // sampling, not synchronisation
	}
	got := g.CPUTime()
	if got <= 0 || got < last {
		t.Errorf("after exit the group's CPU time is %v; it was %v while running", got, last)
	}
}
