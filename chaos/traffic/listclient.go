package traffic

import (
	"context"
	"math/rand/v2"

	"github.com/raftapi/raftapi/chaos/history"
)

// listClient lists a random resource of the namespace in every mode:
// Most Recent, Exact at a recent resourceVersion and NotOlderThan the
// newest it has seen (of any resource: every resource shares one
// sequence of resourceVersions), each sometimes paginated, through a
// random version of a resource served in several (every page of a list
// through the same).
type listClient struct {
	id     int
	t      *Traffic
	rnd    *rand.Rand
	newest int64 // highest list resourceVersion seen
	oldest int64 // the first
}

func (lc *listClient) step(ctx context.Context) {
	res := lc.t.resource(lc.rnd)
	op := history.Op{Client: lc.id, Node: lc.t.node(lc.rnd), Resource: res.Name, Kind: history.List, Mode: history.MostRecent,
		Version: res.pickVersion(lc.rnd.Float64())}
	if lc.rnd.IntN(2) == 0 {
		op.Limit = 2 + lc.rnd.IntN(4)
	}
	if lc.newest > 0 {
		switch lc.rnd.IntN(3) {
		case 1:
			back := lc.rnd.Int64N(min(lc.newest-lc.oldest, 200) + 1)
			op.Mode, op.RequestedRV = history.Exact, lc.newest-back
		case 2:
			op.Mode, op.RequestedRV = history.NotOlderThan, lc.newest
		}
	}
	op = lc.t.rec.Begin(op)
	op = lc.t.cfg.Client.List(ctx, op)
	lc.t.rec.End(op)
	if op.Outcome == history.OK {
		lc.newest = max(lc.newest, op.ResultRV)
		if lc.oldest == 0 {
			lc.oldest = op.ResultRV
		}
	}
}
