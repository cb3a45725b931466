package failpoint

import (
	"context"
	"fmt"
	"math/rand/v2"
)

var _ Failpoint = (*partition)(nil)

// cuts says, for each node, which nodes it hears nothing from.
type cuts map[string][]string

// planner decides a partition's cuts and the nodes it names as targets.
type planner func(ctx context.Context, c Cluster, rnd *rand.Rand) (cuts, []string, error)

// partition applies cuts with iptables and heals them all on recovery.
type partition struct {
	name string
	min  int // fewest nodes the shape makes sense for
	plan planner
}

// PartitionHalves splits the nodes at random into a minority and a
// majority that cannot reach each other.
func PartitionHalves() Failpoint { return &partition{name: "partition-halves", min: 3, plan: halves} }

// PartitionLeader cuts the leader off from every other node.
func PartitionLeader() Failpoint {
	return &partition{name: "partition-leader", min: 3, plan: isolateLeader}
}

// PartitionRing lets every node reach only its two neighbours in a random
// ring: each sees a majority, no two see the same one.
func PartitionRing() Failpoint { return &partition{name: "partition-ring", min: 5, plan: ring} }

// PartitionBridge splits the nodes into two halves joined by one node
// that reaches both.
func PartitionBridge() Failpoint { return &partition{name: "partition-bridge", min: 3, plan: bridge} }

// PartitionOneWay makes one random node deaf to every other node while
// they still hear it.
func PartitionOneWay() Failpoint { return &partition{name: "partition-oneway", min: 3, plan: oneWay} }

func (p *partition) Name() string { return p.name }

func (p *partition) Available(n int) error {
	if n < p.min {
		return fmt.Errorf("%s needs at least %d nodes", p.name, p.min)
	}
	return nil
}

func (p *partition) Inject(ctx context.Context, c Cluster, rnd *rand.Rand) ([]string, error) {
	cs, targets, err := p.plan(ctx, c, rnd)
	if err != nil {
		return nil, err
	}
	for to, from := range cs {
		if err := c.Block(to, from...); err != nil {
			return targets, err
		}
	}
	return targets, nil
}

func (p *partition) Recover(_ context.Context, c Cluster) error { return c.Heal() }

// apart cuts every node of a from every node of b, both ways.
func apart(cs cuts, a, b []string) {
	for _, x := range a {
		cs[x] = append(cs[x], b...)
	}
	for _, y := range b {
		cs[y] = append(cs[y], a...)
	}
}

func halves(_ context.Context, c Cluster, rnd *rand.Rand) (cuts, []string, error) {
	names := shuffled(c.Names(), rnd)
	small := names[:len(names)/2]
	cs := cuts{}
	apart(cs, small, names[len(names)/2:])
	return cs, small, nil
}

func isolateLeader(ctx context.Context, c Cluster, _ *rand.Rand) (cuts, []string, error) {
	l, err := c.Leader(ctx)
	if err != nil {
		return nil, nil, err
	}
	cs := cuts{}
	apart(cs, []string{l}, without(c.Names(), l))
	return cs, []string{l}, nil
}

func ring(_ context.Context, c Cluster, rnd *rand.Rand) (cuts, []string, error) {
	names := shuffled(c.Names(), rnd)
	n := len(names)
	cs := cuts{}
	for i, x := range names {
		cs[x] = without(names, x, names[(i+1)%n], names[(i+n-1)%n])
	}
	return cs, names, nil
}

func bridge(_ context.Context, c Cluster, rnd *rand.Rand) (cuts, []string, error) {
	names := shuffled(c.Names(), rnd)
	mid := names[0]
	rest := names[1:]
	cs := cuts{}
	apart(cs, rest[:len(rest)/2], rest[len(rest)/2:])
	return cs, []string{mid}, nil
}

func oneWay(_ context.Context, c Cluster, rnd *rand.Rand) (cuts, []string, error) {
	names := shuffled(c.Names(), rnd)
	return cuts{names[0]: names[1:]}, names[:1], nil
}
