package cluster

import (
	"testing"
	"time"
)

// TestLostDataNeedsALastingClaim: a voter that gossips "no raft state"
// right after a bootstrap is not taken for wiped; one that keeps saying
// so for the grace period is.
func TestLostDataNeedsALastingClaim(t *testing.T) {
	r := &reconciler{node: &Node{cfg: Config{ReconcileInterval: time.Second}}, lostSince: map[string]time.Time{}}
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at        time.Duration
		stateless bool
		want      bool
	}{
		{0, true, false},                // first claim: stale gossip is possible
		{time.Second, true, false},      // still within the grace
		{2 * time.Second, false, false}, // its metadata caught up: claim withdrawn
		{3 * time.Second, true, false},  // a new claim starts the grace again
		{5 * time.Second, true, false},
		{6 * time.Second, true, true}, // three reconcile intervals of the same claim
	}
	for _, s := range steps {
		if got := r.lostData("n2", s.stateless, t0.Add(s.at)); got != s.want {
			t.Fatalf("at +%v stateless=%v: lostData = %v, want %v", s.at, s.stateless, got, s.want)
		}
	}
}
