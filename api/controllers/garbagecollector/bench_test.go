package garbagecollector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// BenchmarkPass: a pass over 20,000 ConfigMaps as clients write them
// (labels, managedFields, 1 KiB of data), 200 of which are owned by 20 of
// the others, stored in a one-node raftstore. Most objects of a cluster
// are neither owners nor dependents. "full" lists them all, as a leader's
// first pass does; "candidates" reads the 200 owned ones by key, as the
// passes after it do.
func BenchmarkPass(b *testing.B) {
	c := storetest.NewCluster(b, 1)
	c.WaitForLeader()
	gc := newStoreCollector(c.Nodes[0].Store)
	storage := gc.reg.Storage()
	ctx := context.Background()
	value := strings.Repeat("x", 1024)
	put := func(name string, owners ...metav1.OwnerReference) error {
		now := metav1.NewTime(time.Unix(1700000000, 0))
		cm := corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name + "-uid"),
				CreationTimestamp: now, Labels: map[string]string{"app": "bench"}, OwnerReferences: owners,
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate,
					APIVersion: "v1", Time: &now, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:data":{".":{},"f:v":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)}}},
			Data: map[string]string{"v": value}}
		data, err := json.Marshal(cm)
		if err != nil {
			return err
		}
		_, err = storage.Create(ctx, "/registry/core/configmaps/default/"+name, data)
		return err
	}
	var g errgroup.Group
	g.SetLimit(64)
	for i := range 20000 - 200 {
		g.Go(func() error { return put(fmt.Sprint("plain-", i)) })
	}
	for i := range 200 {
		owner := fmt.Sprint("plain-", i%20)
		g.Go(func() error {
			return put(fmt.Sprint("dep-", i), metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner, UID: types.UID(owner + "-uid")})
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	full := func(ctx context.Context) (*gcGraph, error) { return gc.snapshot(ctx) }
	var l gcLoop
	defer l.stopFeed()
	gc.tick(ctx, &l)
	candidates := func(ctx context.Context) (*gcGraph, error) { return gc.snapshotOf(ctx, l.feed.cands.sorted()) }
	for _, c := range []struct {
		name     string
		snapshot func(context.Context) (*gcGraph, error)
	}{{"full", full}, {"candidates", candidates}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				g, err := c.snapshot(ctx)
				if err == nil {
					err = gc.pass(ctx, g)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	if _, err := storage.Get(ctx, "/registry/core/configmaps/default/dep-0", registry.ReadOptions{}); err != nil {
		b.Fatalf("a dependent of a present owner: %v", err)
	}
}
