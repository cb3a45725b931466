package failpoint

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Options tune the failpoints Parse builds.
type Options struct {
	// ClockJumps allows the clock failpoint to step the machine's clock.
	ClockJumps bool
}

// all builds every failpoint, by name.
func all(o Options) map[string]Failpoint {
	fps := []Failpoint{
		KillRandom(), KillLeader(), KillMinority(),
		PauseRandom(), PauseLeader(),
		PartitionHalves(), PartitionLeader(), PartitionRing(), PartitionBridge(), PartitionOneWay(),
		PacketLoss(0.2), Latency(20*time.Millisecond, 150*time.Millisecond, 50*time.Millisecond),
		Membership(), WipeRestart(), ClockJump(o.ClockJumps, 90*time.Second),
	}
	m := map[string]Failpoint{}
	for _, f := range fps {
		m[f.Name()] = f
	}
	return m
}

// Names lists every failpoint name, sorted.
func Names() []string {
	var out []string
	for n := range all(Options{}) {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Parse turns a comma-separated list into failpoints. An entry is a
// failpoint name, a group (kill, pause, partition: every failpoint whose
// name starts with it and a dash) or "all".
func Parse(list string, o Options) ([]Failpoint, error) {
	byName := all(o)
	seen := map[string]bool{}
	var out []Failpoint
	for _, want := range strings.Split(list, ",") {
		want = strings.TrimSpace(want)
		var hit []string
		for _, n := range Names() {
			if want == "all" || n == want || strings.HasPrefix(n, want+"-") {
				hit = append(hit, n)
			}
		}
		if len(hit) == 0 && want != "" {
			return nil, fmt.Errorf("failpoint: unknown fault %q (have %s, groups kill, pause, partition, and all)", want, strings.Join(Names(), ", "))
		}
		for _, n := range hit {
			if !seen[n] {
				seen[n] = true
				out = append(out, byName[n])
			}
		}
	}
	return out, nil
}
