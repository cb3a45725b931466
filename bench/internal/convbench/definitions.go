package convbench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/raftapi/raftapi/bench/internal/kubeapi"
	"github.com/raftapi/raftapi/bench/internal/target"
)

// group is the API group of the benchmark's CRDs.
const group = "bench.raftapi.io"

// crd is one of the benchmark's CRDs: namespaced, served in v1 (stored)
// and v2, each version holding the value in its own spec field.
type crd struct {
	plural, kind string
	// fields are the value's spec field in v1 and in v2.
	fields [2]string
	// policy converts between the versions with a ConversionPolicy;
	// without it the strategy is None.
	policy bool
}

// The two CRDs: None converts only apiVersion, so both versions name the
// field alike; the policy renames spec.value to spec.payload.
var (
	noneCRD   = crd{plural: "noneobjects", kind: "NoneObject", fields: [2]string{"value", "value"}}
	policyCRD = crd{plural: "policyobjects", kind: "PolicyObject", fields: [2]string{"value", "payload"}, policy: true}
)

func (d crd) name() string { return d.plural + "." + group }

// objects is the resource in version v ("v1" or "v2").
func (d crd) objects(v string) kubeapi.Objects {
	return kubeapi.Objects{Group: group, Version: v, Plural: d.plural}
}

// field is the value's field in version v.
func (d crd) field(v string) string {
	if v == "v1" {
		return d.fields[0]
	}
	return d.fields[1]
}

// definition is the CustomResourceDefinition.
func (d crd) definition() map[string]any {
	var versions []any
	for i, v := range []string{"v1", "v2"} {
		spec := map[string]any{"type": "object", "required": []string{d.fields[i]},
			"properties": map[string]any{d.fields[i]: map[string]any{"type": "string"}}}
		versions = append(versions, map[string]any{"name": v, "served": true, "storage": v == "v1",
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{"spec": spec}}}})
	}
	return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": d.name()},
		"spec": map[string]any{"group": group, "scope": "Namespaced", "versions": versions,
			"names":      map[string]any{"plural": d.plural, "singular": strings.ToLower(d.kind), "kind": d.kind, "listKind": d.kind + "List"},
			"conversion": map[string]any{"strategy": "None"}}}
}

// conversionPolicy is the policy of a CRD that has one: one step from v1
// to v2 renaming the value's field.
func (d crd) conversionPolicy() map[string]any {
	rename := map[string]any{"from": "spec." + d.fields[0], "to": "spec." + d.fields[1]}
	return map[string]any{"apiVersion": "raftapi.io/v1", "kind": "ConversionPolicy",
		"metadata": map[string]any{"name": d.name()},
		"spec":     map[string]any{"steps": []any{map[string]any{"from": "v1", "to": "v2", "renames": []any{rename}}}}}
}

// The collections the definitions and policies are created in.
const (
	crdsPath     = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	policiesPath = "/apis/raftapi.io/v1/conversionpolicies"
)

// probeNamespace holds the object each CRD's conversion is checked with.
const probeNamespace = "conv-probe"

// define creates d (and its policy) through clients[0] and waits until
// every node serves both versions and converts between them: an object
// created through v1 reads back through v2 on every node with its value
// in v2's field.
func define(ctx context.Context, clients []*kubeapi.Client, d crd) error {
	if err := clients[0].Apply(ctx, crdsPath, d.definition()); err != nil {
		return fmt.Errorf("convbench: create %s: %w", d.name(), err)
	}
	if err := waitFor(ctx, func() error { return clients[0].CreateNamespace(ctx, probeNamespace) }); err != nil {
		return err
	}
	probe := target.NewCustom(target.CustomConfig{Name: "probe", Resource: d.objects("v1"), Kind: d.kind, Field: d.field("v1")}, clients, nil)
	if err := waitFor(ctx, func() error { return ignoreExists(probe.Create(ctx, 0, probeNamespace, "probe", "probe")) }); err != nil {
		return fmt.Errorf("convbench: %s not served: %w", d.name(), err)
	}
	if d.policy {
		if err := waitFor(ctx, func() error { return clients[0].Apply(ctx, policiesPath, d.conversionPolicy()) }); err != nil {
			return fmt.Errorf("convbench: create the policy of %s: %w", d.name(), err)
		}
	}
	for _, c := range clients {
		if err := waitFor(ctx, func() error { return converts(ctx, c, d) }); err != nil {
			return err
		}
	}
	return nil
}

// converts reads the probe through v2 on one node and checks its value
// is in v2's field.
func converts(ctx context.Context, c *kubeapi.Client, d crd) error {
	body, err := c.GetObject(ctx, d.objects("v2"), probeNamespace, "probe")
	if err != nil {
		return err
	}
	if want := fmt.Sprintf(`"%s":"probe"`, d.field("v2")); !strings.Contains(string(body), want) {
		return fmt.Errorf("convbench: %s serves %s/v2 without %s: %s", c.Base(), d.name(), want, body)
	}
	return nil
}

func ignoreExists(err error) error {
	if kubeapi.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// waitFor calls fn until it succeeds, for at most a minute.
func waitFor(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := fn()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
