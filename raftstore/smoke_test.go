package raftstore

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"
)

func TestSmoke(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			lns := make([]net.Listener, n)
			ic := map[string]string{}
			for i := range lns {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				lns[i] = ln
				ic[fmt.Sprintf("n%d", i)] = ln.Addr().String()
			}
			var stores []*Store
			for i := range lns {
				cfg := Config{Name: fmt.Sprintf("n%d", i), DataDir: t.TempDir(), PeerListener: lns[i]}
				if n > 1 {
					cfg.InitialCluster = ic
				}
				s, err := Open(cfg)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				stores = append(stores, s)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for _, s := range stores {
				if err := s.WaitForLeader(ctx); err != nil {
					t.Fatal(err)
				}
			}
			last := stores[len(stores)-1]
			w, _ := last.Watch(ctx, "/a/", WatchOptions{Recursive: true})
			o, err := last.Create(ctx, "/a/x", []byte(`{"metadata":{"name":"x"}}`))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("created %d %s", o.Rev, o.Data)
			for _, s := range stores {
				g, err := s.Get(ctx, "/a/x", ReadOptions{})
				if err != nil || g.Rev != o.Rev {
					t.Fatalf("get on %s: %v %v", s.Name(), g, err)
				}
			}
			if _, err := last.Create(ctx, "/a/x", []byte(`{}`)); !IsAlreadyExists(err) {
				t.Fatalf("want already exists, got %v", err)
			}
			u, err := stores[0].Update(ctx, "/a/x", []byte(`{"metadata":{"name":"x"},"data":1}`), Preconditions{ResourceVersion: o.Rev})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := stores[0].Update(ctx, "/a/x", []byte(`{}`), Preconditions{ResourceVersion: o.Rev}); !IsConflict(err) {
				t.Fatalf("want conflict, got %v", err)
			}
			old, err := last.Get(ctx, "/a/x", ReadOptions{Consistency: Exact, Revision: o.Rev})
			if err != nil || old.Rev != o.Rev {
				t.Fatalf("exact: %v %v", old, err)
			}
			l, err := last.List(ctx, "/a/", ListOptions{})
			if err != nil || len(l.Items) != 1 || l.Items[0].Rev != u.Rev {
				t.Fatalf("list: %+v %v", l, err)
			}
			for i := 0; i < 2; i++ {
				ev := <-w.ResultChan()
				t.Logf("event %v %d %s", ev.Type, ev.Rev, ev.Object)
			}
		})
	}
}
