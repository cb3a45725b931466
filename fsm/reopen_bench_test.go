package fsm

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
)

// BenchmarkReopen measures a start of the state machine on a state file
// of 100,000 objects of 1 KiB: Open and the first batch, which needs
// bbolt's free page list. After a clean close the list is in the file;
// after a kill Open rebuilds it by walking the file.
func BenchmarkReopen(b *testing.B) {
	const objects, batch = 100_000, 1_000
	withBootID(b, "boot-1")
	pad := strings.Repeat("x", 1000)
	for _, clean := range []bool{true, false} {
		b.Run(fmt.Sprintf("clean=%t", clean), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "state.db")
			f, err := Open(path, nil)
			if err != nil {
				b.Fatal(err)
			}
			index := uint64(0)
			entry := func(c *Command) *raft.Log {
				index++
				return &raft.Log{Index: index, Type: raft.LogCommand, Data: c.Encode()}
			}
			for range objects / batch {
				logs := make([]*raft.Log, batch)
				for i := range logs {
					logs[i] = entry(&Command{Type: CmdCreate, Key: fmt.Sprintf("/bench/obj-%09d", index+1), Object: []byte(`{"data":"` + pad + `"}`)})
				}
				f.ApplyBatch(logs)
			}
			stop := func() {
				if clean {
					if err := f.Close(); err != nil {
						b.Fatal(err)
					}
				} else if err := f.db.Close(); err != nil {
					b.Fatal(err)
				}
			}
			stop()
			for b.Loop() {
				if f, err = Open(path, nil); err != nil {
					b.Fatal(err)
				}
				f.ApplyBatch([]*raft.Log{entry(&Command{Type: CmdCreate, Key: fmt.Sprintf("/bench/new-%09d", index+1), Object: []byte(`{}`)})})
				b.StopTimer()
				stop()
				b.StartTimer()
			}
		})
	}
}
