package traffic

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/raftapi/raftapi/chaos/history"
)

// known is what a register client last learned of a key.
type known struct {
	valid  bool // false: learn it first
	exists bool
	value  string
	rv     int64
}

// registerClient issues one register operation at a time on random keys
// of the current generation of a random resource, on random nodes.
type registerClient struct {
	id    int
	t     *Traffic
	rnd   *rand.Rand
	known map[Key]known
	seq   int
}

// step issues one operation: a get when the client knows nothing of the
// key (or at random), a create when it is absent, else an update or a
// merge patch with the last known resourceVersion as precondition, or a
// delete; through a random version of a resource served in several.
func (rc *registerClient) step(ctx context.Context) {
	res := rc.t.resource(rc.rnd)
	key := rc.t.key(rc.rnd, res)
	k := rc.known[key]
	op := history.Op{Client: rc.id, Node: rc.t.node(rc.rnd), Resource: res.Name, Key: key.Name,
		Version: res.pickVersion(rc.rnd.Float64())}
	op.Kind = choose(k, rc.rnd.Float64())
	switch op.Kind {
	case history.Update, history.Patch:
		op.PrecondRV, op.PrecondVal = k.rv, k.value
	}
	if op.Sets() {
		rc.seq++
		op.Value = fmt.Sprintf("c%d.%d", rc.id, rc.seq)
	}
	op = rc.t.rec.Begin(op)
	op = rc.t.exec(ctx, op)
	rc.t.rec.End(op)
	rc.known[key] = learn(k, op)
}

// choose picks the next operation on a key the client knows k of, from
// a uniform p in [0, 1).
func choose(k known, p float64) history.Kind {
	switch {
	case !k.valid || p < 0.3:
		return history.Get
	case !k.exists:
		return history.Create
	case p < 0.6:
		return history.Update
	case p < 0.85:
		return history.Patch
	}
	return history.Delete
}

// learn updates what a client knows of a key from an operation on it.
func learn(k known, op history.Op) known {
	if op.Outcome == history.OK {
		switch op.Kind {
		case history.Get:
			return known{valid: true, exists: op.Found, value: op.Value, rv: op.ResultRV}
		case history.Create, history.Update, history.Patch:
			return known{valid: true, exists: true, value: op.Value, rv: op.ResultRV}
		case history.Delete:
			return known{valid: true}
		}
	}
	// A node that does not serve the resource said nothing of the key,
	// nor did one that was unavailable.
	if op.Unserved || op.Kind == history.Get || op.Outcome == history.Failed && op.Code == 503 {
		return k
	}
	if op.Outcome == history.Failed && op.Code == 404 {
		return known{valid: true}
	}
	return known{}
}

// exec sends a register operation.
func (t *Traffic) exec(ctx context.Context, op history.Op) history.Op {
	switch op.Kind {
	case history.Get:
		return t.cfg.Client.Get(ctx, op)
	case history.Create:
		return t.cfg.Client.Create(ctx, op)
	case history.Update:
		return t.cfg.Client.Update(ctx, op)
	case history.Patch:
		return t.cfg.Client.Patch(ctx, op)
	}
	return t.cfg.Client.Delete(ctx, op)
}
