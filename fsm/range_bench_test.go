package fsm

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRangePast measures a whole list of 50,000 objects of 1 KiB at
// the current revision and at a revision 5,000 updates in the past (an
// Exact list at an old resourceVersion), the two figures bench-scale
// compares.
func BenchmarkRangePast(b *testing.B) {
	const objects, batch, churn = 50_000, 1_000, 5_000
	st := newBenchState(b)
	value := []byte(`{"data":"` + strings.Repeat("x", 1024) + `"}`)
	past := st.create(objects, batch, value)
	for range churn / batch {
		st.apply(batch, func(i uint64) *Command {
			return &Command{Type: CmdUpdate, Key: benchKey((i - past) * (objects / churn)), Object: value}
		})
	}
	f := st.f
	for name, rev := range map[string]uint64{"current": 0, "past": past} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				n := 0
				err := f.View(func(v *View) error {
					return v.Range("/bench/", "", rev, func(Object) bool { n++; return true })
				})
				if err == nil && n != objects {
					err = fmt.Errorf("%d objects, want %d", n, objects)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
