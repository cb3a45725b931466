package figures

import (
	"context"
	"fmt"
	"sync"

	"github.com/raftapi/raftapi/bench/internal/load"
)

// readSpace holds the keys the get and list figures read.
const readSpace = "read"

// prepareReads fills the read space with exactly ListItems keys: the
// target may hold some there already (raftapi puts its CA bundle in
// every namespace), the rest are created.
func (r *runner) prepareReads(ctx context.Context) error {
	if err := r.t.Prepare(ctx, readSpace); err != nil {
		return err
	}
	have, err := r.t.List(ctx, 0, readSpace)
	if err != nil {
		return fmt.Errorf("figures: list the read space: %w", err)
	}
	if have >= r.cfg.ListItems {
		return fmt.Errorf("figures: the read space holds %d keys already, %d asked for", have, r.cfg.ListItems)
	}
	var mu sync.Mutex
	return createAll(ctx, r.t, readSpace, "r", r.cfg.ListItems-have, r.maxClients(), r.value, func(name string) {
		mu.Lock()
		r.reads = append(r.reads, name)
		mu.Unlock()
	})
}

// get runs a get figure at the largest client count.
func (r *runner) get(ctx context.Context, stale bool) Outcome {
	n := r.maxClients()
	res := load.Run(ctx, load.Options{Clients: n, Duration: r.cfg.Duration, CPU: r.cfg.CPU}, func(ctx context.Context, c, seq int) error {
		return r.t.Get(ctx, c, readSpace, r.reads[(c*7919+seq)%len(r.reads)], stale)
	})
	title := "Most Recent get, "
	if stale {
		title = "Any (rv=0) get, "
	}
	return outcome(title+clientsTitle(n), r.t.Name(), res)
}

// list runs the list figure at the largest client count: every list must
// return all ListItems keys.
func (r *runner) list(ctx context.Context) Outcome {
	n := r.maxClients()
	res := load.Run(ctx, load.Options{Clients: n, Duration: r.cfg.Duration, CPU: r.cfg.CPU}, func(ctx context.Context, c, seq int) error {
		got, err := r.t.List(ctx, c, readSpace)
		if err == nil && got != r.cfg.ListItems {
			err = fmt.Errorf("listed %d keys, want %d", got, r.cfg.ListItems)
		}
		return err
	})
	return outcome(fmt.Sprintf("list (%d items), %s", r.cfg.ListItems, clientsTitle(n)), r.t.Name(), res)
}
