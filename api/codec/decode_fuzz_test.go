package codec_test

import (
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// fuzzWidgets is a resource without a Go type nor a schema, as a custom
// resource whose definition preserves unknown fields.
var fuzzWidgets = &resource.Resource{Group: "example.com", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
	Plural: "widgets", Singular: "widget", Namespaced: true}

// fuzzBodyTargets are the resources FuzzDecodeBody decodes bodies of:
// typed ones (one stored as another version) and an untyped one.
var fuzzBodyTargets = []schema.GroupVersionResource{
	{Version: "v1", Resource: "configmaps"},
	{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
	{Group: "events.k8s.io", Version: "v1", Resource: "events"},
	{Group: "example.com", Version: "v1", Resource: "widgets"},
}

// slowDecode is how long a fuzz body may take to decode: they are small,
// and one that takes long is a way to stall the server.
const slowDecode = 5 * time.Second

var fuzzMedia = []string{codec.MediaJSON, codec.MediaYAML, codec.MediaProtobuf}

var fuzzValidation = []string{metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict}

// FuzzDecodeBody: a create or update body of any bytes, in JSON, YAML or
// Protobuf, for a typed or an untyped resource, decodes or fails with
// what the handlers turn into a Status (never a panic); what decodes
// has the resource's kind and can be stored and read back.
func FuzzDecodeBody(f *testing.F) {
	f.Add(byte(0), byte(0), byte(1), []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`))
	f.Add(byte(0), byte(1), byte(2), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v, k: w}\n"))
	f.Add(byte(1), byte(0), byte(0), []byte(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","spec":{"leaseDurationSeconds":"x"}}`))
	f.Add(byte(2), byte(0), byte(1), []byte(`{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e"},"regarding":{"kind":"Pod"},"note":"n"}`))
	f.Add(byte(3), byte(0), byte(2), []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"a":[1,2.5,null,{"b":true}]}}`))
	f.Add(byte(3), byte(1), byte(1), []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec: &a {x: *a}\n"))
	f.Add(byte(0), byte(2), byte(0), []byte("k8s\x00\n\x0f\n\x02v1\x12\tConfigMap\x12\x0b\n\x03\n\x01a\x1a\x00\"\x00"))
	f.Add(byte(1), byte(2), byte(0), []byte("k8s\x00\n\x1c\n\x17coordination.k8s.io/v1\x12\x05Lease\x12\x00"))
	f.Add(byte(0), byte(0), byte(0), []byte(`{"apiVersion":"v2","kind":"ConfigMap"}`))
	f.Add(byte(0), byte(1), byte(0), []byte("- a\n- b"))
	reg := resource.NewRegistry(append(builtin.Resources(), fuzzWidgets)...)
	codecs := codec.NewCodecs(reg)
	f.Fuzz(func(t *testing.T, which, media, validation byte, body []byte) {
		res := reg.Get(fuzzBodyTargets[int(which)%len(fuzzBodyTargets)])
		mt := fuzzMedia[int(media)%len(fuzzMedia)]
		var obj runtime.Object
		var err error
		decoded := make(chan struct{})
		go func() {
			defer close(decoded)
			obj, _, err = codecs.Decode(res, mt, body, fuzzValidation[int(validation)%len(fuzzValidation)])
		}()
		select {
		case <-decoded:
		case <-time.After(slowDecode):
			t.Fatalf("%s %s body %q: still decoding after %v", res.Plural, mt, body, slowDecode)
		}
		if err != nil {
			var se *apierrors.StatusError
			if !errors.As(codec.BodyError(res, err), &se) {
				t.Fatalf("%s %s body %q: error %v (%T) is no Status", res.Plural, mt, body, err, err)
			}
			return
		}
		// A body may leave out its kind or apiVersion: it takes the
		// resource's. What it gives must be the resource's.
		gvk, want := obj.GetObjectKind().GroupVersionKind(), res.GroupVersionKind()
		if gvk.Kind != "" && gvk.Kind != want.Kind || gvk.Version != "" && gvk.GroupVersion() != want.GroupVersion() {
			t.Fatalf("%s %s body %q decoded as %v", res.Plural, mt, body, gvk)
		}
		data, err := codec.EncodeStored(res, obj)
		if err != nil {
			t.Fatalf("%s %s body %q decoded but does not encode: %v", res.Plural, mt, body, err)
		}
		if _, err := codec.DecodeStored(res, data); err != nil {
			t.Fatalf("%s %s body %q stored as %q, which does not decode: %v", res.Plural, mt, body, data, err)
		}
	})
}
