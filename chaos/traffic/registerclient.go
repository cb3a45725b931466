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
// of the current generation, on random nodes.
type registerClient struct {
	id    int
	t     *Traffic
	rnd   *rand.Rand
	known map[string]known
	seq   int
}

// step issues one operation: a get when the client knows nothing of the
// key (or at random), a create when it is absent, else an update with the
// last known resourceVersion as precondition or a delete.
func (rc *registerClient) step(ctx context.Context) {
	key := rc.t.key(rc.rnd)
	k := rc.known[key]
	op := history.Op{Client: rc.id, Node: rc.t.node(rc.rnd), Key: key}
	p := rc.rnd.Float64()
	switch {
	case !k.valid || p < 0.3:
		op.Kind = history.Get
	case !k.exists:
		op.Kind = history.Create
	case p < 0.85:
		op.Kind, op.PrecondRV, op.PrecondVal = history.Update, k.rv, k.value
	default:
		op.Kind = history.Delete
	}
	if op.Kind == history.Create || op.Kind == history.Update {
		rc.seq++
		op.Value = fmt.Sprintf("c%d.%d", rc.id, rc.seq)
	}
	op = rc.t.rec.Begin(op)
	op = rc.t.exec(ctx, op)
	rc.t.rec.End(op)
	rc.known[key] = learn(k, op)
}

// learn updates what a client knows of a key from an operation on it.
func learn(k known, op history.Op) known {
	if op.Outcome == history.OK {
		switch op.Kind {
		case history.Get:
			return known{valid: true, exists: op.Found, value: op.Value, rv: op.ResultRV}
		case history.Create, history.Update:
			return known{valid: true, exists: true, value: op.Value, rv: op.ResultRV}
		case history.Delete:
			return known{valid: true}
		}
	}
	if op.Outcome == history.Failed && op.Code == 404 {
		return known{valid: true}
	}
	if op.Kind == history.Get || op.Outcome == history.Failed && op.Code == 503 {
		return k
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
	}
	return t.cfg.Client.Delete(ctx, op)
}
