package openapi

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestDefinitionName(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[corev1.ConfigMap](), "io.k8s.api.core.v1.ConfigMap"},
		{reflect.TypeFor[metav1.ObjectMeta](), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		{reflect.TypeFor[resource.Quantity](), "io.k8s.apimachinery.pkg.api.resource.Quantity"},
		// TypeMeta's OpenAPIModelName is promoted, and names TypeMeta.
		{reflect.TypeFor[embedsTypeMeta](), "com.github.raftapi.raftapi.api.openapi.embedsTypeMeta"},
	}
	for _, tt := range tests {
		if got := definitionName(tt.typ); got != tt.want {
			t.Errorf("definitionName(%v) = %q, want %q", tt.typ, got, tt.want)
		}
	}
	if got := untypedName(schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "CronTab"}); got != "com.example.stable.v1.CronTab" {
		t.Errorf("untypedName = %q", got)
	}
}

func TestOperationIDAndTag(t *testing.T) {
	tests := []struct {
		verb, group, version, rest string
		wantID, wantTag            string
	}{
		{"read", "", "v1", "NamespacedConfigMap", "readCoreV1NamespacedConfigMap", "core_v1"},
		{"list", "coordination.k8s.io", "v1", "LeaseForAllNamespaces", "listCoordinationV1LeaseForAllNamespaces", "coordination_v1"},
		{"delete", "rbac.authorization.k8s.io", "v1", "CollectionClusterRole", "deleteRbacAuthorizationV1CollectionClusterRole", "rbacAuthorization_v1"},
		{"patch", "stable.example.com", "v1beta1", "NamespacedCronTab", "patchStableExampleComV1beta1NamespacedCronTab", "stableExampleCom_v1beta1"},
	}
	for _, tt := range tests {
		gv := schema.GroupVersion{Group: tt.group, Version: tt.version}
		if got := operationID(tt.verb, gv, tt.rest); got != tt.wantID {
			t.Errorf("operationID(%s, %v) = %q, want %q", tt.verb, gv, got, tt.wantID)
		}
		if got := tag(gv); got != tt.wantTag {
			t.Errorf("tag(%v) = %q, want %q", gv, got, tt.wantTag)
		}
	}
}

func TestNegotiate(t *testing.T) {
	pb := []string{protobufV3, protobufV3Accepted}
	tests := []struct {
		accept string
		want   representation
		ok     bool
	}{
		{"", asJSON, true},
		{"application/json", asJSON, true},
		{"*/*", asJSON, true},
		{protobufV3Accepted, asProtobuf, true},
		{protobufV3, asProtobuf, true},
		{"application/json;q=0.5, " + protobufV3Accepted, asProtobuf, true},
		{protobufV3Accepted + ";q=0.5, application/json", asJSON, true},
		{"application/com.github.proto-openapi.spec.v2@v1.0+protobuf", 0, false},
		{"text/html, application/json;q=0", 0, false},
	}
	for _, tt := range tests {
		got, ok := negotiate(tt.accept, pb...)
		if got != tt.want || ok != tt.ok {
			t.Errorf("negotiate(%q) = %v, %v; want %v, %v", tt.accept, got, ok, tt.want, tt.ok)
		}
	}
}
