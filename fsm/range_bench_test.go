package fsm

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
)

// BenchmarkRangePast measures a whole list of 50,000 objects of 1 KiB at
// the current revision and at a revision 5,000 updates in the past (an
// Exact list at an old resourceVersion), the two figures bench-scale
// compares.
func BenchmarkRangePast(b *testing.B) {
	const objects, batch, churn = 50_000, 1_000, 5_000
	path := filepath.Join(b.TempDir(), "state.db")
	f, err := Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	value := []byte(`{"data":"` + strings.Repeat("x", 1024) + `"}`)
	index := uint64(0)
	apply := func(n int, cmd func(i uint64) *Command) {
		logs := make([]*raft.Log, n)
		for i := range logs {
			index++
			logs[i] = &raft.Log{Index: index, Type: raft.LogCommand, Data: cmd(index).Encode()}
		}
		f.ApplyBatch(logs)
	}
	key := func(i uint64) string { return fmt.Sprintf("/bench/obj-%09d", i) }
	for range objects / batch {
		apply(batch, func(i uint64) *Command { return &Command{Type: CmdCreate, Key: key(i), Object: value} })
	}
	past := index
	for range churn / batch {
		apply(batch, func(i uint64) *Command {
			return &Command{Type: CmdUpdate, Key: key((i - past) * (objects / churn)), Object: value}
		})
	}
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
