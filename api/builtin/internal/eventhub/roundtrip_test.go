package eventhub

import (
	"encoding/json"
	"math/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"
)

// roundTrips is how many random objects each round-trip test converts.
const roundTrips = 5000

// newFuzzer returns a fuzzer filling objects with random values, with
// ObjectMeta and timestamps kept representable in JSON as
// kube-apiserver's round-trip tests keep them. It logs its seed so that a
// failure can be replayed.
func newFuzzer(t *testing.T) *randfill.Filler {
	t.Helper()
	seed := time.Now().UnixNano()
	t.Logf("fuzzer seed %d", seed)
	return fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), serializer.NewCodecFactory(runtime.NewScheme()))
}

// checkRoundTrip fails unless got is semantically equal to want.
func checkRoundTrip(t *testing.T, i int, what string, want, got any) {
	t.Helper()
	if !apiequality.Semantic.DeepEqual(want, got) {
		t.Fatalf("object %d: %s lost information:\n%s", i, what, cmp.Diff(want, got))
	}
}

func TestRoundTripCoreV1(t *testing.T) {
	f := newFuzzer(t)
	for i := range roundTrips {
		in := &corev1.Event{}
		f.Fill(in)
		in.TypeMeta = metav1.TypeMeta{}
		checkRoundTrip(t, i, "core/v1 → hub → core/v1", in, FromCoreV1(in).ToCoreV1())
	}
}

func TestRoundTripEventsV1(t *testing.T) {
	f := newFuzzer(t)
	for i := range roundTrips {
		in := &eventsv1.Event{}
		f.Fill(in)
		in.TypeMeta = metav1.TypeMeta{}
		checkRoundTrip(t, i, "events.k8s.io/v1 → hub → events.k8s.io/v1", in, FromEventsV1(in).ToEventsV1())
	}
}

// TestRoundTripHub proves that neither version drops a field of the hub,
// so that an event written in one version and read in the other loses
// nothing.
func TestRoundTripHub(t *testing.T) {
	f := newFuzzer(t)
	for i := range roundTrips {
		in := &Event{}
		f.Fill(in)
		checkRoundTrip(t, i, "hub → core/v1 → hub", in, FromCoreV1(in.ToCoreV1()))
		checkRoundTrip(t, i, "hub → events.k8s.io/v1 → hub", in, FromEventsV1(in.ToEventsV1()))
	}
}

// TestRoundTripThroughStorage follows an events.k8s.io/v1 event the way
// the API keeps it: converted to the core/v1 storage version, encoded as
// JSON, decoded and converted back.
func TestRoundTripThroughStorage(t *testing.T) {
	f := newFuzzer(t)
	for i := range roundTrips {
		in := &eventsv1.Event{}
		f.Fill(in)
		in.TypeMeta = metav1.TypeMeta{}
		data, err := json.Marshal(FromEventsV1(in).ToCoreV1())
		if err != nil {
			t.Fatalf("object %d: encode: %v", i, err)
		}
		stored := &corev1.Event{}
		if err := json.Unmarshal(data, stored); err != nil {
			t.Fatalf("object %d: decode: %v", i, err)
		}
		checkRoundTrip(t, i, "events.k8s.io/v1 → core/v1 JSON → events.k8s.io/v1", in, FromCoreV1(stored).ToEventsV1())
	}
}
