package apiextensions_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

// published records what a Serving publishes.
type published struct {
	mu   sync.Mutex
	gvrs []runtimeschema.GroupVersionResource
}

func (p *published) Publish(add []*resource.Resource, remove []runtimeschema.GroupVersionResource) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gvrs = slices.DeleteFunc(p.gvrs, func(gvr runtimeschema.GroupVersionResource) bool { return slices.Contains(remove, gvr) })
	for _, r := range add {
		p.gvrs = append(p.gvrs, r.GroupVersion().WithResource(r.Plural))
	}
}

func (p *published) has(gvr runtimeschema.GroupVersionResource) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.gvrs, gvr)
}

// acceptedCRD is newCRD as stored once its names are accepted.
func acceptedCRD(t *testing.T) []byte {
	t.Helper()
	c := created(nil)
	c.Status.AcceptedNames = c.Spec.Names
	c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue}}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestServingFirstCRDOfAnEmptyStore: a CRD written to a store that held
// nothing, between Serving's list (at revision 0) and its watch, is
// served.
func TestServingFirstCRDOfAnEmptyStore(t *testing.T) {
	inner := registrytest.New()
	t.Cleanup(func() { _ = inner.Close() })
	crds, policies := apiextensions.CRDResource(), apiextensions.PolicyResource()
	data := acceptedCRD(t)
	storage := registrytest.AfterFirstList(inner, crds.Prefix(""), func() {
		if _, err := inner.Create(context.Background(), crds.Key("", "foos.example.com"), data); err != nil {
			t.Error(err)
		}
	})
	pub := &published{}
	s := apiextensions.NewServing(storage, crds, policies, pub, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	want := runtimeschema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "foos"}
	stop := time.Now().Add(10 * time.Second)
	for !pub.has(want) {
		if time.Now().After(stop) {
			t.Fatalf("%v not served", want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
