package scalebench

import (
	"context"
	"fmt"

	"github.com/raftapi/raftapi/bench/internal/raftnodes"
	"github.com/raftapi/raftapi/bench/internal/report"
)

// memory reads every node's resident set size (VmRSS) and databases'
// sizes against the data the cluster holds.
func (r *run) memory(ctx context.Context, res *Results) error {
	for _, n := range r.c.Nodes {
		m, err := r.memoryOf(ctx, n, "loaded")
		if err != nil {
			return err
		}
		res.Memory = append(res.Memory, m)
	}
	return nil
}

// memoryOf measures node n now; when says at which point of the run.
func (r *run) memoryOf(ctx context.Context, n *raftnodes.Node, when string) (Memory, error) {
	rss, err := r.c.RSS(n)
	if err != nil {
		return Memory{}, err
	}
	st, err := r.c.Status(ctx, n)
	if err != nil {
		return Memory{}, err
	}
	m := Memory{Node: n.Name, When: when, RSS: rss, Held: r.held, StateBytes: st.StateBytes, LogBytes: st.LogBytes}
	r.logf("memory %s (%s): RSS %s for %s of objects; state db %s, raft log %s", n.Name, when,
		report.Bytes(rss), report.Bytes(r.held), report.Bytes(st.StateBytes), report.Bytes(st.LogBytes))
	if rss == 0 {
		return m, fmt.Errorf("memory %s: no resident set size", n.Name)
	}
	return m, nil
}
