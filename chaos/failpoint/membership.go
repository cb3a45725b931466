package failpoint

import (
	"context"
	"errors"
	"math/rand/v2"
)

var _ Failpoint = (*membership)(nil)

// membership removes a node from the cluster and adds it back with no
// data; wipe kills a node and restarts it with no data. Either way the
// node comes back empty and the leader must re-add it (remove, add as a
// non-voter, promote once caught up).
type membership struct {
	name   string
	leave  bool
	target string
}

// Membership asks a random node to leave the cluster (the API's leave:
// the leader removes it from the raft configuration) and, on recovery,
// starts it again with a wiped data directory so it is added back.
func Membership() Failpoint { return &membership{name: "membership", leave: true} }

// WipeRestart kills -9 a random node and, on recovery, restarts it with
// a wiped data directory.
func WipeRestart() Failpoint { return &membership{name: "wipe"} }

func (m *membership) Name() string        { return m.name }
func (m *membership) Restarts() bool      { return true }
func (m *membership) Available(int) error { return nil }

func (m *membership) Inject(ctx context.Context, c Cluster, rnd *rand.Rand) ([]string, error) {
	t, _ := randomNode(ctx, c, rnd)
	m.target = t[0]
	if m.leave {
		return t, c.Leave(ctx, m.target)
	}
	return t, c.Kill(m.target)
}

// Recover kills the node if leaving did not stop it, wipes its data and
// starts it again.
func (m *membership) Recover(_ context.Context, c Cluster) error {
	if m.target == "" {
		return nil
	}
	t := m.target
	m.target = ""
	_ = c.Kill(t) // not running is fine
	return errors.Join(c.Wipe(t), c.Restart(t))
}
