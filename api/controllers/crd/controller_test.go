package crd

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

// newTestController returns the CRD controllers over an in-memory store
// serving the CRD resource, and the registry.
func newTestController(t *testing.T) (*Controller, *registry.Registry, *resource.Resource) {
	t.Helper()
	reg, _ := registrytest.NewRegistry(t, registry.Options{})
	builtins := reg.Resources().All()
	crds := apiextensions.CRDResource()
	reg.Register(crds)
	return New(reg, crds, builtins, slog.New(slog.DiscardHandler), time.Now), reg, crds
}

func things(name, kind string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name + ".test.raftapi.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "test.raftapi.io", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: name, Singular: name[:len(name)-1], Kind: kind, ListKind: kind + "List"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr(true),
				}},
			}},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func create(t *testing.T, reg *registry.Registry, res *resource.Resource, ns string, obj any) {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	o, err := codec.DecodeStored(res, data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Store(res).Create(context.Background(), ns, o, registry.WriteOptions{}); err != nil {
		t.Fatalf("create %s: %v", res.Plural, err)
	}
}

func get(t *testing.T, reg *registry.Registry, crds *resource.Resource, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	o, err := reg.Store(crds).Get(context.Background(), "", name, registry.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(o.Data, crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

// TestNamingEstablishes accepts the names of a first CRD and establishes
// it in one pass, and refuses a second CRD of the group whose kind is
// taken.
func TestNamingEstablishes(t *testing.T) {
	c, reg, crds := newTestController(t)
	create(t, reg, crds, "", things("gizmos", "Gizmo"))
	c.reconcile(context.Background())
	gadgets := things("gadgets", "Gizmo")
	gadgets.Spec.Names.ListKind = "GadgetList"
	create(t, reg, crds, "", gadgets)
	c.reconcile(context.Background())

	first := get(t, reg, crds, "gizmos.test.raftapi.io")
	if !apiextensionshelpers.IsCRDConditionTrue(first, apiextensionsv1.Established) || !apiextensionshelpers.IsCRDConditionTrue(first, apiextensionsv1.NamesAccepted) {
		t.Errorf("first CRD conditions = %+v, want NamesAccepted and Established", first.Status.Conditions)
	}
	if first.Status.AcceptedNames.Kind != "Gizmo" {
		t.Errorf("accepted names = %+v, want kind Gizmo", first.Status.AcceptedNames)
	}
	second := get(t, reg, crds, "gadgets.test.raftapi.io")
	cond := apiextensionshelpers.FindCRDCondition(second, apiextensionsv1.NamesAccepted)
	if cond == nil || cond.Status != apiextensionsv1.ConditionFalse || cond.Reason != "KindConflict" {
		t.Errorf("second CRD NamesAccepted = %+v, want False KindConflict", cond)
	}
	if apiextensionshelpers.IsCRDConditionTrue(second, apiextensionsv1.Established) {
		t.Error("a CRD whose kind conflicts is Established")
	}
	rv := first.ResourceVersion
	c.reconcile(context.Background())
	if again := get(t, reg, crds, "gizmos.test.raftapi.io"); again.ResourceVersion != rv {
		t.Errorf("a second pass rewrote an established CRD (resourceVersion %s → %s)", rv, again.ResourceVersion)
	}
}

// TestCleanupResumes deletes a CRD whose instances include one a
// finalizer holds: a pass deletes the others and leaves the CRD
// Terminating; a new controller (a new leader) finishes once the
// finalizer is gone.
func TestCleanupResumes(t *testing.T) {
	c, reg, crds := newTestController(t)
	create(t, reg, crds, "", things("gizmos", "Gizmo"))
	c.reconcile(context.Background())
	crd := get(t, reg, crds, "gizmos.test.raftapi.io")
	rs, err := apiextensions.Resources(crd, nil)
	if err != nil || len(rs) != 1 {
		t.Fatalf("Resources = %v, %v", rs, err)
	}
	gizmos := rs[0]
	reg.Register(gizmos)
	for i := range 20 {
		g := map[string]any{"apiVersion": "test.raftapi.io/v1", "kind": "Gizmo", "metadata": map[string]any{"name": fmt.Sprintf("g%d", i)}}
		if i == 0 {
			g["metadata"].(map[string]any)["finalizers"] = []string{"test.raftapi.io/hold"}
		}
		create(t, reg, gizmos, "default", g)
	}
	if _, err := reg.Store(crds).Delete(context.Background(), "", crd.Name, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	crd = get(t, reg, crds, crd.Name)
	if c := apiextensionshelpers.FindCRDCondition(crd, apiextensionsv1.Terminating); c == nil || c.Reason != "InstanceDeletionPending" {
		t.Errorf("after DELETE Terminating = %+v, want InstanceDeletionPending", c)
	}

	c.reconcile(context.Background())
	list, err := reg.Store(gizmos).List(context.Background(), "", registry.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("after one pass %d instances (err %v), want the held one", len(list.Items), err)
	}
	crd = get(t, reg, crds, crd.Name)
	if c := apiextensionshelpers.FindCRDCondition(crd, apiextensionsv1.Terminating); c == nil || c.Reason != "InstanceDeletionInProgress" {
		t.Errorf("Terminating = %+v, want InstanceDeletionInProgress", c)
	}

	held, err := codec.DecodeStored(gizmos, list.Items[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	held.(*unstructured.Unstructured).SetFinalizers(nil)
	if _, err := reg.Store(gizmos).Update(context.Background(), "default", "g0", held, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	next := New(reg, crds, nil, slog.New(slog.DiscardHandler), time.Now)
	next.reconcile(context.Background())
	if _, err := reg.Store(crds).Get(context.Background(), "", crd.Name, registry.GetOptions{}); err == nil {
		t.Error("the CRD is still there after its last instance went")
	}
}

// TestCleanupDeletesPolicy: deleting a CRD deletes the ConversionPolicy
// named as it.
func TestCleanupDeletesPolicy(t *testing.T) {
	c, reg, crds := newTestController(t)
	policies := apiextensions.PolicyResource()
	reg.Register(policies)
	create(t, reg, crds, "", things("gizmos", "Gizmo"))
	c.reconcile(context.Background())
	create(t, reg, policies, "", map[string]any{"apiVersion": "raftapi.io/v1", "kind": "ConversionPolicy",
		"metadata": map[string]any{"name": "gizmos.test.raftapi.io"}, "spec": map[string]any{"steps": []any{}}})
	if _, err := reg.Store(crds).Delete(context.Background(), "", "gizmos.test.raftapi.io", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.reconcile(context.Background())
	if _, err := reg.Store(crds).Get(context.Background(), "", "gizmos.test.raftapi.io", registry.GetOptions{}); err == nil {
		t.Fatal("the CRD is still there")
	}
	if _, err := reg.Store(policies).Get(context.Background(), "", "gizmos.test.raftapi.io", registry.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the policy of a deleted CRD: %v, want NotFound", err)
	}
}
