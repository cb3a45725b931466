package fsm

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
)

// benchState is an FSM of a benchmark and the log it has applied.
type benchState struct {
	f     *FSM
	index uint64 // the last applied index
}

// newBenchState opens an empty FSM in the benchmark's directory.
func newBenchState(b *testing.B) *benchState {
	b.Helper()
	f, err := Open(filepath.Join(b.TempDir(), "state.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return &benchState{f: f}
}

// apply applies n commands in one batch, cmd giving each entry's
// command from its index.
func (s *benchState) apply(n int, cmd func(i uint64) *Command) {
	logs := make([]*raft.Log, n)
	for i := range logs {
		s.index++
		logs[i] = &raft.Log{Index: s.index, Type: raft.LogCommand, Data: cmd(s.index).Encode()}
	}
	s.f.ApplyBatch(logs)
}

// benchKey is the key of the benchmarks' object i.
func benchKey(i uint64) string { return fmt.Sprintf("/bench/obj-%09d", i) }

// create creates objects objects holding value, in batches of batch,
// keyed benchKey(index); it returns the index of the last.
func (s *benchState) create(objects, batch int, value []byte) uint64 {
	for range objects / batch {
		s.apply(batch, func(i uint64) *Command { return &Command{Type: CmdCreate, Key: benchKey(i), Object: value} })
	}
	return s.index
}
