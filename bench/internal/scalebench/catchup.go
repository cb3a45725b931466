package scalebench

import (
	"context"
	"fmt"
	"time"

	"github.com/raftapi/raftapi/bench/internal/report"
)

// catchUp adds a new member as a learner and starts it (raftapi members
// add, then serve with --initial-cluster-state existing): how long until
// it is ready, how long until it has applied what the leader had
// committed when it started, and the size of what it received. The add
// request's own time is reported beside them: the leader may take a
// snapshot for the newcomer before it answers.
func (r *run) catchUp(ctx context.Context, res *Results) error {
	leader, err := r.c.Leader(ctx)
	if err != nil {
		return err
	}
	st, err := r.c.Status(ctx, leader)
	if err != nil {
		return err
	}
	asked := time.Now()
	n, err := r.c.AddLearner(ctx, fmt.Sprintf("n%d", len(r.c.Nodes)+1))
	if err != nil {
		return err
	}
	added := n.Process().Started().Sub(asked)
	r.logf("catch-up: %s added as a learner and started; the leader's commit index is %d", n.Name, st.CommitIndex)
	if err := r.c.WaitReady(ctx, n, readyTimeout); err != nil {
		return err
	}
	out := &CatchUp{Node: n.Name, Add: added, Ready: time.Since(n.Process().Started())}
	deadline := time.Now().Add(readyTimeout)
	for {
		ns, err := r.c.Status(ctx, n)
		if err == nil && ns.AppliedIndex >= st.CommitIndex {
			out.CaughtUp, out.Bytes = time.Since(n.Process().Started()), ns.StateBytes+ns.LogBytes
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("catch-up: %s did not reach index %d: %v", n.Name, st.CommitIndex, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	res.CatchUp = out
	r.logf("catch-up: %s added in %v, ready after %v, caught up after %v, %s on disk", n.Name,
		out.Add.Round(time.Millisecond), out.Ready.Round(time.Millisecond), out.CaughtUp.Round(time.Millisecond), report.Bytes(out.Bytes))
	return nil
}
