package scalebench

import (
	"context"

	"github.com/raftapi/raftapi/bench/internal/raftnodes"
	"github.com/raftapi/raftapi/bench/internal/report"
)

// memory reads every node's resident memory (VmRSS, and its anonymous
// and file-backed parts) and databases' sizes against the data the
// cluster holds.
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
	mem, err := r.c.Memory(n)
	if err != nil {
		return Memory{}, err
	}
	st, err := r.c.Status(ctx, n)
	if err != nil {
		return Memory{}, err
	}
	m := Memory{Node: n.Name, Role: st.State, When: when, Memory: mem, Held: r.held, StateBytes: st.StateBytes, LogBytes: st.LogBytes}
	r.logf("memory %s (%s, %s): RSS %s (anon %s, file %s) for %s of objects; state db %s, raft log %s", n.Name, st.State, when,
		report.Bytes(mem.RSS), report.Bytes(mem.Anon), report.Bytes(mem.File), report.Bytes(r.held),
		report.Bytes(st.StateBytes), report.Bytes(st.LogBytes))
	return m, nil
}
