package failpoint

import (
	"context"
	"math/rand/v2"
	"time"
)

var (
	_ Failpoint = (*loss)(nil)
	_ Failpoint = (*latency)(nil)
)

// loss drops a share of the packets between nodes.
type loss struct{ p float64 }

// PacketLoss makes every node drop each packet from the other nodes with
// probability p (iptables' statistic match).
func PacketLoss(p float64) Failpoint { return &loss{p: p} }

func (l *loss) Name() string        { return "loss" }
func (l *loss) Available(int) error { return nil }

func (l *loss) Inject(_ context.Context, c Cluster, _ *rand.Rand) ([]string, error) {
	for _, n := range c.Names() {
		if err := c.Lose(n, l.p); err != nil {
			return nil, err
		}
	}
	return c.Names(), nil
}

func (l *loss) Recover(_ context.Context, c Cluster) error { return c.Heal() }

// latency slows the peer links down and reorders messages between
// connections.
type latency struct{ min, max, jitter time.Duration }

// Latency delays every peer link by a random latency in [min, max) plus up
// to jitter per chunk, through the harness's peer proxies.
func Latency(min, max, jitter time.Duration) Failpoint {
	return &latency{min: min, max: max, jitter: jitter}
}

func (l *latency) Name() string        { return "latency" }
func (l *latency) Available(int) error { return nil }

func (l *latency) Inject(_ context.Context, c Cluster, rnd *rand.Rand) ([]string, error) {
	d := l.min
	if l.max > l.min {
		d += time.Duration(rnd.Int64N(int64(l.max - l.min)))
	}
	c.SetLatency(d, l.jitter)
	return c.Names(), nil
}

func (l *latency) Recover(_ context.Context, c Cluster) error {
	c.SetLatency(0, 0)
	return nil
}
