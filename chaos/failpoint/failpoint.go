package failpoint

import (
	"context"
	"math/rand/v2"
	"time"
)

// Cluster is what the failpoints need of the cluster under test.
// Its methods may be called from the schedule's goroutine only; each
// changes one node or the network and returns once the change is made.
type Cluster interface {
	// Names returns the node names.
	Names() []string
	// Leader returns the node a majority takes for the leader.
	Leader(ctx context.Context) (string, error)
	// Kill sends SIGKILL and waits for the exit; Restart starts the node
	// again on its data directory (no-op when it runs).
	Kill(name string) error
	Restart(name string) error
	// Pause sends SIGSTOP, Resume SIGCONT.
	Pause(name string) error
	Resume(name string) error
	// Wipe removes a stopped node's data directory.
	Wipe(name string) error
	// Leave asks the node to leave the cluster; it returns once the
	// process has exited.
	Leave(ctx context.Context, name string) error
	// Block makes node to drop every packet from the nodes from; Lose
	// makes it drop packets from every other node with probability p;
	// Heal removes every Block and Lose rule.
	Block(to string, from ...string) error
	Lose(to string, p float64) error
	Heal() error
	// SetLatency delays every peer link by latency plus up to jitter.
	SetLatency(latency, jitter time.Duration)
}

// Failpoint is one kind of fault. The schedule calls Available once
// before the run, then Inject and Recover in turn, never concurrently:
// Recover follows every Inject, even one that failed, and must leave the
// cluster able to heal (every node running, the network whole).
type Failpoint interface {
	// Name identifies the failpoint in flags and reports.
	Name() string
	// Available returns why the failpoint cannot run against a cluster
	// of n nodes on this machine, or nil.
	Available(n int) error
	// Inject starts the fault and returns the nodes it hit.
	Inject(ctx context.Context, c Cluster, rnd *rand.Rand) ([]string, error)
	// Recover undoes Inject.
	Recover(ctx context.Context, c Cluster) error
}

// Restarter is implemented by the failpoints whose recovery starts the
// processes of the nodes they hit again (kill -9, wipe, leave). The
// history marks their windows (history.Fault.Restarts): a restarted node
// serves what its state holds only once it has applied it again, a
// custom resource only after replaying its definition.
type Restarter interface {
	Restarts() bool
}

// restarts reports whether fp restarts the nodes it hits.
func restarts(fp Failpoint) bool {
	r, ok := fp.(Restarter)
	return ok && r.Restarts()
}
