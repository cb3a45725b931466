package scalebench

import (
	"context"
	"time"
)

// loadBulk creates objects in a namespace of their own until the cluster
// holds RestartObjects of them with the listed ones.
func (r *run) loadBulk(ctx context.Context, res *Results) error {
	n := r.cfg.RestartObjects - r.cfg.ListObjects
	if n <= 0 {
		return nil
	}
	l, _, err := r.bulkLoad(ctx, bulkNS, "o", n)
	res.Loads = append(res.Loads, l)
	if err != nil {
		return err
	}
	r.held += l.Bytes
	r.logf("load %s: %d objects in %v (%.0f/s)", bulkNS, l.Objects, l.Elapsed.Round(time.Millisecond), float64(l.Objects)/l.Elapsed.Seconds())
	return nil
}
