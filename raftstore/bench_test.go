package raftstore_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// benchPayload is the size of the data field of every benchmark object,
// which makes each object a little over 1 KiB of JSON.
const benchPayload = 1024

// benchSeq makes every benchmark run write keys of its own: a b.Run
// function is called several times, with growing b.N, on one cluster.
var benchSeq atomic.Int64

// benchQuiet discards node logs: benchmark logs are always printed, and
// raft's election warnings would drown the results.
func benchQuiet(c *raftstore.Config) {
	c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
}

// benchWorkers runs b.N calls of op spread over workers goroutines and
// reports the throughput as unit/s and the latency percentiles of one call.
func benchWorkers(b *testing.B, workers int, unit string, op func(i int) error) {
	b.Helper()
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= b.N {
					return
				}
				t0 := time.Now()
				if err := op(i); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), unit+"/s")
	b.ReportMetric(benchPercentile(lat, 0.50), "p50-ms")
	b.ReportMetric(benchPercentile(lat, 0.99), "p99-ms")
}

// benchPercentile returns the q-quantile of sorted in milliseconds.
func benchPercentile(sorted []time.Duration, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	i = min(max(i, 0), len(sorted)-1)
	return float64(sorted[i]) / float64(time.Millisecond)
}

// BenchmarkCreate measures Store.Create of new 1 KiB objects on 1-node and
// 3-node clusters (through the leader with 1, 16 and 64 concurrent
// writers, and through a follower, which forwards to it, with 1, 16 and 64).
func BenchmarkCreate(b *testing.B) {
	for _, nodes := range []int{1, 3} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			c := storetest.NewCluster(b, nodes, benchQuiet)
			b.Run("via=leader", func(b *testing.B) {
				for _, writers := range []int{1, 16, 64} {
					b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
						benchCreates(b, c.Leader(), writers)
					})
				}
			})
			if nodes > 1 {
				for _, writers := range []int{1, 16, 64} {
					b.Run(fmt.Sprintf("via=follower/writers=%d", writers), func(b *testing.B) {
						benchCreates(b, c.Follower(), writers)
					})
				}
			}
		})
	}
}

func benchCreates(b *testing.B, s *raftstore.Store, writers int) {
	prefix := fmt.Sprintf("/bench/create/%d/", benchSeq.Add(1))
	ctx := context.Background()
	benchWorkers(b, writers, "writes", func(i int) error {
		name := fmt.Sprintf("obj-%d", i)
		_, err := s.Create(ctx, prefix+name, faultObject(name, benchPayload))
		return err
	})
}

// benchReadKeys is how many objects BenchmarkRead reads among.
const benchReadKeys = 1000

// BenchmarkRead compares Most Recent (quorum) and Any (local) Gets of 1 KiB
// objects with 16 concurrent readers: on a 1-node cluster, and on the
// leader and a follower of a 3-node cluster.
func BenchmarkRead(b *testing.B) {
	for _, nodes := range []int{1, 3} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			c := storetest.NewCluster(b, nodes, benchQuiet)
			keys := benchPreload(b, c)
			via := map[string]*raftstore.Store{"leader": c.Leader()}
			if nodes > 1 {
				via["follower"] = c.Follower()
			}
			for _, name := range []string{"leader", "follower"} {
				s, ok := via[name]
				if !ok {
					continue
				}
				for _, opts := range []raftstore.ReadOptions{faultMostRecent, faultAny} {
					b.Run(fmt.Sprintf("via=%s/%v", name, opts.Consistency), func(b *testing.B) {
						benchGets(b, s, keys, opts)
					})
				}
			}
		})
	}
}

func benchGets(b *testing.B, s *raftstore.Store, keys []string, opts raftstore.ReadOptions) {
	ctx := context.Background()
	benchWorkers(b, 16, "reads", func(i int) error {
		_, err := s.Get(ctx, keys[i%len(keys)], opts)
		return err
	})
}

// benchPreload creates the objects BenchmarkRead reads and waits until
// every node has applied them.
func benchPreload(b *testing.B, c *storetest.Cluster) []string {
	b.Helper()
	leader := c.Leader()
	ctx := context.Background()
	keys := make([]string, benchReadKeys)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(keys); i = int(next.Add(1) - 1) {
				name := fmt.Sprintf("obj-%04d", i)
				keys[i] = "/bench/read/" + name
				if _, err := leader.Create(ctx, keys[i], faultObject(name, benchPayload)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	rev := leader.Revision()
	faultEventually(b, faultDeadline, "every node applies the preloaded objects", allAtRevision(c, rev))
	return keys
}
