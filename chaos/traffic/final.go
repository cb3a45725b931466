package traffic

import (
	"context"

	"github.com/raftapi/raftapi/chaos/history"
)

// Final reads, once faults have healed and the other clients stopped,
// every key the run used, of every resource, from every node at Most
// Recent (retrying reads without an answer a few times) and lists every
// resource on every node, recording all of it: the history's last word
// on each key.
func (t *Traffic) Final(ctx context.Context) {
	id := t.cfg.RegisterClients + t.cfg.ListClients
	for _, node := range t.cfg.Nodes {
		for _, k := range t.Keys() {
			for try := 0; try < 3; try++ {
				op := t.rec.Begin(history.Op{Client: id, Node: node, Resource: k.Resource.Name, Key: k.Name, Kind: history.Get})
				op = t.cfg.Client.Get(ctx, op)
				t.rec.End(op)
				if op.Outcome == history.OK || ctx.Err() != nil {
					break
				}
			}
		}
		for _, res := range t.cfg.Resources {
			op := t.rec.Begin(history.Op{Client: id, Node: node, Resource: res.Name, Kind: history.List, Mode: history.MostRecent})
			t.rec.End(t.cfg.Client.List(ctx, op))
		}
	}
}
