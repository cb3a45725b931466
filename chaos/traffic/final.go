package traffic

import (
	"context"

	"github.com/raftapi/raftapi/chaos/history"
)

// Final reads, once faults have healed and the other clients stopped,
// every key the run used, of every resource, from every node at Most
// Recent (retrying reads without an answer a few times) and lists every
// resource on every node, recording all of it: the history's last word
// on each key. A resource served in several versions is read and listed
// through each of them.
func (t *Traffic) Final(ctx context.Context) {
	id := t.cfg.RegisterClients + t.cfg.ListClients
	for _, node := range t.cfg.Nodes {
		for _, k := range t.Keys() {
			for _, v := range versionNames(resourceOf(k.Resource, "")) {
				t.finalGet(ctx, history.Op{Client: id, Node: node, Resource: k.Resource, Key: k.Name, Kind: history.Get, Version: v})
			}
		}
		for _, res := range t.cfg.Resources {
			for _, v := range versionNames(res) {
				op := t.rec.Begin(history.Op{Client: id, Node: node, Resource: res.Name, Kind: history.List, Mode: history.MostRecent, Version: v})
				t.rec.End(t.cfg.Client.List(ctx, op))
			}
		}
	}
}

// finalGet reads one key, up to three times until it has an answer.
func (t *Traffic) finalGet(ctx context.Context, get history.Op) {
	for try := 0; try < 3; try++ {
		op := t.cfg.Client.Get(ctx, t.rec.Begin(get))
		t.rec.End(op)
		if op.Outcome == history.OK || ctx.Err() != nil {
			return
		}
	}
}

// versionNames are the versions a final read goes through: every
// version of a resource served in several, else "" (its only one).
func versionNames(res Resource) []string {
	if len(res.Versions) < 2 {
		return []string{""}
	}
	var out []string
	for _, v := range res.Versions {
		out = append(out, v.Name)
	}
	return out
}
