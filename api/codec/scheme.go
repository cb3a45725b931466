package codec

import (
	"bytes"
	autoscalingv1 "k8s.io/api/autoscaling/v1"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/raftapi/raftapi/api/resource"
)

// Codecs holds the serializers of the typed resources. The scheme is
// built from the registry's resources with a Go type, plus the meta types
// every group-version carries (DeleteOptions, WatchEvent, Status).
type Codecs struct {
	Scheme     *runtime.Scheme
	StrictJSON runtime.Serializer
	StrictYAML runtime.Serializer
	// Proto encodes and decodes with the Protobuf envelope.
	Proto runtime.Serializer
	// ProtoRaw encodes without the envelope (watch event frames).
	ProtoRaw runtime.Serializer
}

// NewCodecs builds the codecs of the resources in reg.
func NewCodecs(reg *resource.Registry) *Codecs {
	scheme := runtime.NewScheme()
	seen := map[schema.GroupVersion]bool{}
	for _, r := range reg.All() {
		gv := r.GroupVersion()
		if !seen[gv] {
			seen[gv] = true
			metav1.AddToGroupVersion(scheme, gv)
		}
		addTyped(scheme, seen, r)
		for _, sub := range r.Subresources {
			if sub.Body != nil {
				addTyped(scheme, seen, sub.Body)
			}
		}
	}
	// The Scale of scale subresources.
	scaleGV := autoscalingv1.SchemeGroupVersion
	if !seen[scaleGV] {
		metav1.AddToGroupVersion(scheme, scaleGV)
	}
	scheme.AddKnownTypes(scaleGV, &autoscalingv1.Scale{})
	if !seen[schema.GroupVersion{Version: "v1"}] {
		metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	}
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	_ = metav1.AddMetaToScheme(scheme)
	mf := jsonserializer.DefaultMetaFactory
	return &Codecs{
		Scheme:     scheme,
		StrictJSON: jsonserializer.NewSerializerWithOptions(mf, scheme, scheme, jsonserializer.SerializerOptions{Strict: true}),
		StrictYAML: jsonserializer.NewSerializerWithOptions(mf, scheme, scheme, jsonserializer.SerializerOptions{Yaml: true, Strict: true}),
		Proto:      protobuf.NewSerializer(scheme, scheme),
		ProtoRaw:   protobuf.NewRawSerializer(scheme, scheme),
	}
}

// addTyped adds r's Go types, if it has them, to scheme under r's
// group and version (a review has no list type).
func addTyped(scheme *runtime.Scheme, seen map[schema.GroupVersion]bool, r *resource.Resource) {
	if !r.Typed() {
		return
	}
	gv := r.GroupVersion()
	if !seen[gv] {
		seen[gv] = true
		metav1.AddToGroupVersion(scheme, gv)
	}
	scheme.AddKnownTypeWithName(gv.WithKind(r.Kind), r.New())
	if r.NewList != nil {
		scheme.AddKnownTypeWithName(gv.WithKind(r.ListKind), r.NewList())
	}
}

// Protobuf encodes a typed object with the Protobuf envelope.
func (c *Codecs) Protobuf(obj runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := c.Proto.Encode(obj, &buf); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return buf.Bytes(), nil
}
