package negotiation

import (
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/resource"
)

var (
	typed = &resource.Resource{Version: "v1", Kind: "ConfigMap", Plural: "configmaps",
		New: func() runtime.Object { return &corev1.ConfigMap{} }}
	untyped = &resource.Resource{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets"}
)

func TestParseAcceptOrdersByQuality(t *testing.T) {
	got := ParseAccept("application/yaml;q=0.5, application/json, bad;;, */*;q=0.1")
	want := []string{"application/json", "application/yaml", "*/*"}
	if len(got) != len(want) {
		t.Fatalf("ParseAccept = %+v, want types %v", got, want)
	}
	for i, a := range got {
		if a.Type != want[i] {
			t.Errorf("entry %d = %s, want %s", i, a.Type, want[i])
		}
		if _, ok := a.Params["q"]; ok {
			t.Errorf("entry %d keeps q among its parameters: %v", i, a.Params)
		}
	}
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		name, accept string
		res          *resource.Resource
		want         Output
		wantCode     int32
	}{
		{"none", "", typed, Output{}, 0},
		{"json", "application/json", typed, Output{}, 0},
		{"yaml", "application/yaml", typed, Output{Enc: YAML}, 0},
		{"protobuf", "application/vnd.kubernetes.protobuf", typed, Output{Enc: Protobuf}, 0},
		{"protobuf untyped falls back", "application/vnd.kubernetes.protobuf, application/json;q=0.5", untyped, Output{}, 0},
		{"table", "application/json;as=Table;v=v1;g=meta.k8s.io", typed, Output{View: ViewTable, MetaVersion: "v1"}, 0},
		{"metadata v1beta1", "application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io", typed, Output{View: ViewMetadata, MetaVersion: "v1beta1"}, 0},
		{"refused json", "application/json;q=0, application/yaml", typed, Output{Enc: YAML}, 0},
		{"unknown", "text/html", typed, Output{}, 406},
		{"protobuf only, untyped", "application/vnd.kubernetes.protobuf", untyped, Output{}, 406},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/v1/configmaps", nil)
			if tt.accept != "" {
				r.Header.Set("Accept", tt.accept)
			}
			got, err := Negotiate(r, tt.res)
			if tt.wantCode != 0 {
				if se, ok := err.(*apierrors.StatusError); !ok || se.ErrStatus.Code != tt.wantCode {
					t.Fatalf("Negotiate(%q) = %+v, %v; want %d", tt.accept, got, err, tt.wantCode)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Negotiate(%q) = %+v, %v; want %+v", tt.accept, got, err, tt.want)
			}
		})
	}
}

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"":                  false,
		"gzip":              true,
		"deflate, GZIP;q=1": true,
		"gzip;q=0":          false,
		"gzip; q=0.0":       false,
		"br":                false,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Accept-Encoding", header)
		if got := AcceptsGzip(r); got != want {
			t.Errorf("AcceptsGzip(%q) = %v, want %v", header, got, want)
		}
	}
}

// TestParseAcceptTakesTypesMIMERefuses: media types with characters MIME
// does not allow in a token, such as the OpenAPI protobuf types clients
// send, are parsed (lower-cased) with their parameters; broken ones are
// skipped.
func TestParseAcceptTakesTypesMIMERefuses(t *testing.T) {
	got := ParseAccept("application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0.9, Application/JSON;Q=0.5, /json, text, a/b/c, application/json;;")
	if len(got) != 2 {
		t.Fatalf("ParseAccept = %+v, want the protobuf and JSON entries only", got)
	}
	if got[0].Type != "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" || got[0].Q != 0.9 {
		t.Errorf("first entry %+v, want the OpenAPI protobuf type at q=0.9", got[0])
	}
	if got[1].Type != "application/json" || got[1].Q != 0.5 {
		t.Errorf("second entry %+v, want application/json at q=0.5", got[1])
	}
}
