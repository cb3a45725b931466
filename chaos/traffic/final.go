package traffic

import (
	"context"

	"github.com/raftapi/raftapi/chaos/history"
)

// Final reads, once faults have healed and the other clients stopped,
// every key the run used from every node at Most Recent (retrying reads
// without an answer a few times) and lists the namespace on every node,
// recording all of it: the history's last word on each key.
func (t *Traffic) Final(ctx context.Context) {
	id := t.cfg.RegisterClients + t.cfg.ListClients
	for _, node := range t.cfg.Nodes {
		for _, k := range t.Keys() {
			for try := 0; try < 3; try++ {
				op := t.rec.Begin(history.Op{Client: id, Node: node, Key: k, Kind: history.Get})
				op = t.cfg.Client.Get(ctx, op)
				t.rec.End(op)
				if op.Outcome == history.OK || ctx.Err() != nil {
					break
				}
			}
		}
		op := t.rec.Begin(history.Op{Client: id, Node: node, Kind: history.List, Mode: history.MostRecent})
		t.rec.End(t.cfg.Client.List(ctx, op))
	}
}
