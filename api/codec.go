package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/raftapi/raftapi/api/resource"
)

// codecs holds the serializers of the typed resources. The scheme is
// built from the registry's resources with a Go type, plus the meta types
// every group-version carries (DeleteOptions, WatchEvent, Status).
type codecs struct {
	scheme     *runtime.Scheme
	json       runtime.Serializer
	strictJSON runtime.Serializer
	strictYAML runtime.Serializer
	proto      runtime.Serializer
	protoRaw   runtime.Serializer
}

func newCodecs(reg *resource.Registry) *codecs {
	scheme := runtime.NewScheme()
	seen := map[schema.GroupVersion]bool{}
	for _, r := range reg.All() {
		gv := r.GroupVersion()
		if !seen[gv] {
			seen[gv] = true
			metav1.AddToGroupVersion(scheme, gv)
		}
		if r.Typed() {
			scheme.AddKnownTypeWithName(gv.WithKind(r.Kind), r.New())
			scheme.AddKnownTypeWithName(gv.WithKind(r.ListKind), r.NewList())
		}
	}
	if !seen[schema.GroupVersion{Version: "v1"}] {
		metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	}
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	_ = metav1.AddMetaToScheme(scheme)
	mf := jsonserializer.DefaultMetaFactory
	return &codecs{
		scheme:     scheme,
		json:       jsonserializer.NewSerializerWithOptions(mf, scheme, scheme, jsonserializer.SerializerOptions{}),
		strictJSON: jsonserializer.NewSerializerWithOptions(mf, scheme, scheme, jsonserializer.SerializerOptions{Strict: true}),
		strictYAML: jsonserializer.NewSerializerWithOptions(mf, scheme, scheme, jsonserializer.SerializerOptions{Yaml: true, Strict: true}),
		proto:      protobuf.NewSerializer(scheme, scheme),
		protoRaw:   protobuf.NewRawSerializer(scheme, scheme),
	}
}
