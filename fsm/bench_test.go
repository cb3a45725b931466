package fsm_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

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
