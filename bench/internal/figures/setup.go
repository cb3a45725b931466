package figures

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// createAll creates n keys named prefix-0 ... in space with the given
// number of clients, and calls done with each name created. It stops at
// the first error.
func createAll(ctx context.Context, t Target, space, prefix string, n, clients int, value string, done func(string)) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for c := range min(clients, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				name := fmt.Sprintf("%s-%d", prefix, i)
				if err := t.Create(ctx, c, space, name, variant(value, c, i)); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
				done(name)
			}
		})
	}
	wg.Wait()
	if first != nil && !errors.Is(first, context.Canceled) {
		return fmt.Errorf("figures: create %d keys in %s: %w", n, space, first)
	}
	return ctx.Err()
}
