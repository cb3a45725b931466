package failpoint

import (
	"context"
	"math/rand/v2"
)

// picker chooses the nodes a fault hits.
type picker func(ctx context.Context, c Cluster, rnd *rand.Rand) ([]string, error)

// randomNode picks one node.
func randomNode(_ context.Context, c Cluster, rnd *rand.Rand) ([]string, error) {
	names := c.Names()
	return []string{names[rnd.IntN(len(names))]}, nil
}

// leaderNode picks the leader.
func leaderNode(ctx context.Context, c Cluster, _ *rand.Rand) ([]string, error) {
	l, err := c.Leader(ctx)
	if err != nil {
		return nil, err
	}
	return []string{l}, nil
}

// minority picks the largest minority: 1 of 3, 2 of 5.
func minority(_ context.Context, c Cluster, rnd *rand.Rand) ([]string, error) {
	names := shuffled(c.Names(), rnd)
	return names[:(len(names)-1)/2], nil
}

func shuffled(names []string, rnd *rand.Rand) []string {
	out := append([]string(nil), names...)
	rnd.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func without(names []string, drop ...string) []string {
	skip := map[string]bool{}
	for _, d := range drop {
		skip[d] = true
	}
	var out []string
	for _, n := range names {
		if !skip[n] {
			out = append(out, n)
		}
	}
	return out
}
