package fsm_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/fsm"
)

// BenchmarkApplyBatch measures applying creates of 1 KiB objects in
// batches of 1 and 64 entries, with a bbolt commit (and fsync) per batch.
func BenchmarkApplyBatch(b *testing.B) {
	const nameLen = len("obj-000000000000")
	pad := strings.Repeat("x", 1024-len(`{"metadata":{"name":"","uid":"u"},"data":""}`)-nameLen)
	for _, size := range []int{1, 4, 64} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			f, err := fsm.Open(filepath.Join(b.TempDir(), "state.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { f.Close() })
			index := uint64(0)
			logs := make([]*raft.Log, size)
			b.SetBytes(int64(size) * 1024)
			b.ReportAllocs()
			for b.Loop() {
				for i := range logs {
					index++
					name := fmt.Sprintf("obj-%012d", index)
					obj := fmt.Sprintf(`{"metadata":{"name":%q,"uid":"u"},"data":%q}`, name, pad)
					if len(obj) != 1024 {
						b.Fatalf("object of %d bytes, want 1024", len(obj))
					}
					logs[i] = cmdLog(index, &fsm.Command{Type: fsm.CmdCreate, Key: "/bench/" + name, Object: []byte(obj)})
				}
				for _, r := range f.ApplyBatch(logs) {
					if r.(*fsm.Result).Err != nil {
						b.Fatal(r.(*fsm.Result).Err)
					}
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkCommitDelay measures updates of 1 KiB objects at random keys
// of a state holding 100,000, arriving in raft batches of 3 entries, with
// a bbolt commit after every batch (as without a commit delay), after
// every 3 and after every 7 batches (about what a 5 ms delay gathers
// under load; see pending.go).
func BenchmarkCommitDelay(b *testing.B) {
	const keys, per = 100_000, 3
	pad := strings.Repeat("x", 960)
	obj := func(i uint64) []byte {
		return fmt.Appendf(nil, `{"metadata":{"name":"obj-%012d","uid":"u"},"data":%q}`, i, pad)
	}
	for _, every := range []int{1, 3, 7} {
		b.Run(fmt.Sprintf("commit-every=%d", every), func(b *testing.B) {
			f, err := fsm.Open(filepath.Join(b.TempDir(), "state.db"), nil, fsm.WithCommitDelay(time.Hour))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { f.Close() })
			index := uint64(0)
			load := make([]*raft.Log, 0, 1000)
			for i := range keys {
				index++
				load = append(load, cmdLog(index, &fsm.Command{Type: fsm.CmdCreate, Key: fmt.Sprintf("/bench/%06d", i), Object: obj(index)}))
				if len(load) == cap(load) {
					f.ApplyBatch(load)
					f.Need(index)
					load = load[:0]
				}
			}
			rng := rand.New(rand.NewPCG(1, 2))
			logs := make([]*raft.Log, per)
			batches := 0
			b.ReportAllocs()
			for b.Loop() {
				for i := range logs {
					index++
					key := fmt.Sprintf("/bench/%06d", rng.IntN(keys))
					logs[i] = cmdLog(index, &fsm.Command{Type: fsm.CmdUpdate, Key: key, Object: obj(index)})
				}
				f.ApplyBatch(logs)
				if batches++; batches%every == 0 {
					f.Need(index)
				}
			}
			f.Need(index)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*per), "µs/entry")
		})
	}
}
