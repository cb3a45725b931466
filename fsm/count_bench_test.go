package fsm

import (
	"fmt"
	"testing"
)

// BenchmarkCountPast measures the remainingItemCount of the first page
// of a paged list over 50,000 keys at a revision 100 writes in the past,
// as every later page of a list is read while writes go on: resolving
// each key at the revision, and correcting the current count with the
// changes since.
func BenchmarkCountPast(b *testing.B) {
	const objects, batch, churn = 50_000, 1_000, 100
	st := newBenchState(b)
	f := st.f
	past := st.create(objects, batch, []byte(`{"data":"x"}`))
	st.apply(churn, func(i uint64) *Command {
		return &Command{Type: CmdUpdate, Key: benchKey(i - past), Object: []byte(`{"data":"y"}`)}
	})
	after := benchKey(500)
	for _, way := range []int32{countByKeys, countByChanges} {
		b.Run(map[int32]string{countByKeys: "keys", countByChanges: "changes"}[way], func(b *testing.B) {
			prev := countStrategy.Swap(way)
			defer countStrategy.Store(prev)
			for b.Loop() {
				err := f.View(func(v *View) error {
					n, err := v.Count("/bench/", after, past)
					if err == nil && n != objects-500 {
						err = fmt.Errorf("count %d, want %d", n, objects-500)
					}
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
