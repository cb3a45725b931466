package convwebhook_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/apiextensions/convwebhook"
)

func TestConvertBatchesInOneRequest(t *testing.T) {
	h := newHook(t, convertAll(rename))
	c := mustNew(t, h.crd())
	objs := []map[string]any{foo("a", 1), foo("b", 2), foo("c", 3), foo("d", 4), foo("e", 5)}
	out, err := c.Convert(objs, "v2")
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	reqs := h.requests()
	if len(reqs) != 1 {
		t.Fatalf("webhook got %d requests for %d objects, want 1", len(reqs), len(objs))
	}
	r := reqs[0]
	if r.review.APIVersion != "apiextensions.k8s.io/v1" || r.review.Kind != "ConversionReview" || r.review.Request == nil {
		t.Fatalf("request = %s, want a v1 ConversionReview", r.body)
	}
	if got := r.review.Request; got.DesiredAPIVersion != group+"/v2" || got.UID == "" || len(got.Objects) != len(objs) {
		t.Errorf("request: desiredAPIVersion %q, uid %q, %d objects; want %s/v2, a uid, %d", got.DesiredAPIVersion, got.UID, len(got.Objects), group, len(objs))
	}
	if r.url != "/convert?timeout=30s" {
		t.Errorf("request URL = %q, want kube's /convert?timeout=30s", r.url)
	}
	if ct, ua := r.header.Get("Content-Type"), r.header.Get("User-Agent"); ct != "application/json" || ua != "kube-apiserver-admission" {
		t.Errorf("Content-Type %q, User-Agent %q", ct, ua)
	}
	for i, o := range out {
		if o["apiVersion"] != group+"/v2" || o["spec"].(map[string]any)["count"] != int64(i+1) {
			t.Errorf("object %d = %v, want v2 with spec.count %d", i, o, i+1)
		}
	}
}

func TestConvertUsesAFreshUIDPerCall(t *testing.T) {
	h := newHook(t, convertAll(rename))
	c := mustNew(t, h.crd())
	for range 2 {
		if _, err := c.Convert([]map[string]any{foo("a", 1)}, "v2"); err != nil {
			t.Fatalf("Convert: %v", err)
		}
	}
	reqs := h.requests()
	if len(reqs) != 2 || reqs[0].review.Request.UID == reqs[1].review.Request.UID {
		t.Errorf("two calls sent UIDs %q and %q, want two different", reqs[0].review.Request.UID, reqs[1].review.Request.UID)
	}
}

func TestConvertNothingOrAnEmptyObjectCallsNoWebhook(t *testing.T) {
	h := newHook(t, convertAll(rename))
	c := mustNew(t, h.crd())
	if out, err := c.Convert(nil, "v2"); err != nil || len(out) != 0 {
		t.Errorf("Convert(nil) = %v, %v; want nothing", out, err)
	}
	out, err := c.Convert([]map[string]any{{"apiVersion": group + "/v1", "kind": "Foo"}}, "v2")
	want := []map[string]any{{"apiVersion": group + "/v2", "kind": "Foo"}}
	if err != nil || !reflect.DeepEqual(out, want) {
		t.Errorf("Convert(empty object) = %v, %v; want %v", out, err, want)
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("webhook got %d requests, want none (kube converts an empty object itself)", n)
	}
}

// randomFoo is a random v1 Foo as the server holds it: JSON values, with
// int64 and float64 numbers.
func randomFoo(r *rand.Rand, i int) map[string]any {
	o := foo(fmt.Sprintf("foo-%d", i), r.Int64N(1<<62))
	meta := o["metadata"].(map[string]any)
	meta["annotations"] = map[string]any{"note": randomString(r)}
	meta["finalizers"] = []any{"example.com/" + randomString(r)}
	meta["creationTimestamp"] = "2025-03-14T15:09:26Z"
	spec := o["spec"].(map[string]any)
	for j := range r.IntN(4) {
		spec[fmt.Sprintf("f%d", j)] = randomValue(r, 3)
	}
	if r.IntN(2) == 0 {
		o["status"] = map[string]any{"ready": r.IntN(2) == 0}
	}
	return o
}

// randomValue is a random JSON value nested at most depth deep.
func randomValue(r *rand.Rand, depth int) any {
	switch n := r.IntN(7); {
	case depth > 0 && n == 0:
		m := map[string]any{}
		for range r.IntN(3) {
			m[randomString(r)] = randomValue(r, depth-1)
		}
		return m
	case depth > 0 && n == 1:
		s := []any{}
		for range r.IntN(3) {
			s = append(s, randomValue(r, depth-1))
		}
		return s
	case n == 2:
		return r.Int64() - r.Int64()
	case n == 3:
		return float64(r.IntN(1000)) + 0.5
	case n == 4:
		return r.IntN(2) == 0
	case n == 5:
		return nil
	}
	return randomString(r)
}

// randomString is a short random string, unicode included.
func randomString(r *rand.Rand) string {
	const alphabet = "abcXYZ09-_.é☃ \"\\"
	runes := []rune(alphabet)
	var b strings.Builder
	for range 1 + r.IntN(8) {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}

func TestConvertRoundTripsRandomObjects(t *testing.T) {
	h := newHook(t, convertAll(rename))
	c := mustNew(t, h.crd())
	r := rand.New(rand.NewPCG(12, 2025))
	for round := range 20 {
		objs := make([]map[string]any, 1+r.IntN(30))
		for i := range objs {
			objs[i] = randomFoo(r, i)
		}
		before := deepCopyAll(objs)
		v2, err := c.Convert(objs, "v2")
		if err != nil {
			t.Fatalf("round %d: to v2: %v", round, err)
		}
		for i, o := range v2 {
			spec := o["spec"].(map[string]any)
			if _, ok := spec["replicas"]; ok || spec["count"] != objs[i]["spec"].(map[string]any)["replicas"] {
				t.Fatalf("round %d: object %d in v2 = %v, want spec.replicas renamed to count", round, i, spec)
			}
		}
		back, err := c.Convert(v2, "v1")
		if err != nil {
			t.Fatalf("round %d: back to v1: %v", round, err)
		}
		if !reflect.DeepEqual(back, objs) {
			t.Fatalf("round %d: v1 -> v2 -> v1 changed the objects:\n got %v\nwant %v", round, back, objs)
		}
		if !reflect.DeepEqual(objs, before) {
			t.Fatalf("round %d: Convert modified its input", round)
		}
	}
}

func deepCopyAll(objs []map[string]any) []map[string]any {
	out := make([]map[string]any, len(objs))
	for i, o := range objs {
		out[i] = runtime.DeepCopyJSON(o)
	}
	return out
}

func TestConvertIsSafeForConcurrentUse(t *testing.T) {
	h := newHook(t, convertAll(rename))
	c := mustNew(t, h.crd())
	shared := []map[string]any{foo("shared", 9)}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				want := int64(g*100 + i)
				out, err := c.Convert([]map[string]any{foo("x", want), shared[0]}, "v2")
				if err != nil {
					t.Errorf("Convert: %v", err)
					return
				}
				if got := out[0]["spec"].(map[string]any)["count"]; got != want {
					t.Errorf("goroutine %d got count %v, want %d: answers crossed", g, got, want)
				}
			}
		})
	}
	wg.Wait()
	if _, ok := shared[0]["spec"].(map[string]any)["replicas"]; !ok || shared[0]["apiVersion"] != group+"/v1" {
		t.Errorf("the shared input changed: %v", shared[0])
	}
}

func TestConvertPicksTheFirstSupportedReviewVersion(t *testing.T) {
	tests := []struct {
		versions []string
		want     string
	}{
		{[]string{"v1"}, "apiextensions.k8s.io/v1"},
		{[]string{"v1beta1"}, "apiextensions.k8s.io/v1beta1"},
		{[]string{"v3", "v1beta1", "v1"}, "apiextensions.k8s.io/v1beta1"},
		{[]string{"v1", "v1beta1"}, "apiextensions.k8s.io/v1"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.versions, ","), func(t *testing.T) {
			h := newHook(t, func(t *testing.T, req *apiextensionsv1.ConversionReview) any {
				a := convertAll(rename)(t, req).(*apiextensionsv1.ConversionReview)
				a.APIVersion = req.APIVersion // answer in the version asked
				return a
			})
			c := mustNew(t, h.crd(tt.versions...))
			if _, err := c.Convert([]map[string]any{foo("a", 1)}, "v2"); err != nil {
				t.Fatalf("Convert: %v", err)
			}
			if got := h.requests()[0].review.APIVersion; got != tt.want {
				t.Errorf("review sent as %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConvertV1beta1DoesNotCheckTheUID(t *testing.T) {
	h := newHook(t, func(t *testing.T, req *apiextensionsv1.ConversionReview) any {
		a := convertAll(rename)(t, req).(*apiextensionsv1.ConversionReview)
		a.APIVersion, a.Response.UID = "apiextensions.k8s.io/v1beta1", "not-the-request's"
		return a
	})
	c := mustNew(t, h.crd("v1beta1"))
	if _, err := c.Convert([]map[string]any{foo("a", 1)}, "v2"); err != nil {
		t.Errorf("Convert: %v; kube accepts any uid in a v1beta1 answer", err)
	}
}

func TestConvertWithNoSupportedReviewVersionFails(t *testing.T) {
	h := newHook(t, convertAll(rename))
	c := mustNew(t, h.crd("v9"))
	_, err := c.Convert([]map[string]any{foo("a", 1)}, "v2")
	checkStatus(t, err, "no supported conversion review versions")
}

func TestNewRefuses(t *testing.T) {
	svc := webhookCRD("https://example.com", nil)
	svc.Spec.Conversion.Webhook.ClientConfig = &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Namespace: "ns", Name: "conv"}}
	none := webhookCRD("https://example.com", nil)
	none.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		want string
	}{
		{"a service", svc, "convwebhook: foos.example.com: raftapi reaches conversion webhooks only by clientConfig.url"},
		{"no webhook", none, "convwebhook: foos.example.com: spec.conversion has no webhook clientConfig"},
		{"a caBundle that is not PEM", webhookCRD("https://example.com", []byte("not PEM")),
			"convwebhook: foos.example.com: unable to load root certificates: unable to parse bytes as PEM block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := convwebhook.New(tt.crd)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("New: %v, want %q", err, tt.want)
			}
		})
	}
}
