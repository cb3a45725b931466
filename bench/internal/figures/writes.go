package figures

import (
	"context"
	"fmt"
	"math"

	"github.com/raftapi/raftapi/bench/internal/load"
)

// writeSpace is the space the write figures create, update and delete in.
const writeSpace = "write"

// create runs the create figure at n clients; every key created joins
// the pool.
func (r *runner) create(ctx context.Context, n int) Outcome {
	res := load.Run(ctx, load.Options{Clients: n, Duration: r.cfg.Duration, CPU: r.cfg.CPU}, func(ctx context.Context, c, seq int) error {
		name := fmt.Sprintf("c%d-%d-%d", n, c, seq)
		if err := r.t.Create(ctx, c, writeSpace, name, variant(r.value, c, seq)); err != nil {
			return err
		}
		r.pool.add(name)
		return nil
	})
	r.created[n] = res.Summary().OpsPerSec
	return outcome("write (create), "+clientsTitle(n), r.t.Name(), res)
}

// update runs the update figure at n clients: client c updates the c-th
// key of the pool over and over, so that no two clients race for a key.
func (r *runner) update(ctx context.Context, n int) (Outcome, error) {
	if err := r.fill(ctx, n); err != nil {
		return Outcome{}, err
	}
	res := load.Run(ctx, load.Options{Clients: n, Duration: r.cfg.Duration, CPU: r.cfg.CPU}, func(ctx context.Context, c, seq int) error {
		return r.t.Update(ctx, c, writeSpace, r.pool.peek(c), variant(r.value, c, seq))
	})
	return outcome("update, "+clientsTitle(n), r.t.Name(), res), nil
}

// deleteKeys runs the delete figure at n clients, on keys of the pool.
// The pool is filled first to half again what the create figure at n
// clients wrote in as long; should it run dry all the same, the figure
// ends there and says so.
func (r *runner) deleteKeys(ctx context.Context, n int) (Outcome, error) {
	want := int(math.Ceil(1.5 * r.created[n] * r.cfg.Duration.Seconds()))
	if err := r.fill(ctx, want); err != nil {
		return Outcome{}, err
	}
	res := load.Run(ctx, load.Options{Clients: n, Duration: r.cfg.Duration, CPU: r.cfg.CPU}, func(ctx context.Context, c, seq int) error {
		name, ok := r.pool.take()
		if !ok {
			return load.ErrDone
		}
		return r.t.Delete(ctx, c, writeSpace, name)
	})
	o := outcome("delete, "+clientsTitle(n), r.t.Name(), res)
	if res.Ended {
		o.Note = fmt.Sprintf("ran out of keys after %.1fs", res.Elapsed.Seconds())
	}
	return o, nil
}

// fill creates keys, untimed, until the pool holds at least want.
func (r *runner) fill(ctx context.Context, want int) error {
	missing := want - r.pool.left()
	if missing <= 0 {
		return nil
	}
	r.logf("%s: creating %d more keys for the next figure", r.t.Name(), missing)
	r.fills++
	return createAll(ctx, r.t, writeSpace, fmt.Sprintf("f%d", r.fills), missing, r.maxClients(), r.value, r.pool.add)
}
