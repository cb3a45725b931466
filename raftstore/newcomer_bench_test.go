package raftstore_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// BenchmarkNewMember measures a member added to a one-node cluster
// holding 100,000 objects of 1 KiB, written with default snapshot
// settings (so none was taken): the time from the add to the newcomer
// holding the last write, and the bytes of state per second that makes.
func BenchmarkNewMember(b *testing.B) {
	const objects = 100_000
	c := storetest.NewCluster(b, 1, benchQuiet)
	leader := c.Leader()
	ctx := context.Background()
	var last raftstore.Object
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range 64 {
		wg.Go(func() {
			for i := range next {
				o, err := leader.Create(ctx, fmt.Sprintf("/newmember/%06d", i), faultObject(fmt.Sprint(i), benchPayload))
				if err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				if o.Rev > last.Rev {
					last = o
				}
				mu.Unlock()
			}
		})
	}
	for i := range objects {
		next <- i
	}
	close(next)
	wg.Wait()
	state := leader.StatusWithDisk().StateBytes
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("m%d", i)
		cfg := raftstore.Config{Name: name, DataDir: b.TempDir(), PeerListener: ln, DeferBootstrap: true}
		benchQuiet(&cfg)
		s, err := raftstore.Open(cfg)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := leader.AddNonvoter(name, ln.Addr().String()); err != nil {
			b.Fatal(err)
		}
		for deadline := start.Add(5 * time.Minute); s.Status().AppliedIndex < last.Rev; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("%s applied %d of %d after 5 minutes", name, s.Status().AppliedIndex, last.Rev)
			}
		}
		took := time.Since(start)
		b.ReportMetric(float64(state)/(1<<20)/took.Seconds(), "MiB/s")
		b.StopTimer()
		if err := leader.RemoveMember(name); err != nil {
			b.Fatal(err)
		}
		s.Close()
		b.StartTimer()
	}
}
