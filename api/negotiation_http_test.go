package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"sigs.k8s.io/yaml"
)

// Media types of the negotiation tests.
const (
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
	mediaYAML     = "application/yaml"
	tableV1       = "application/json;as=Table;v=v1;g=meta.k8s.io"
)

// protoCodec returns a Kubernetes Protobuf serializer for core/v1.
func protoCodec(t testing.TB) runtime.Serializer {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatalf("scheme: %v", err)
	}
	metav1.AddToGroupVersion(scheme, corev1.SchemeGroupVersion)
	return protobuf.NewSerializer(scheme, scheme)
}

// wantContentType fails the test unless the response's media type is mt.
func (r *response) wantContentType(t testing.TB, mt string) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != mt && !strings.HasPrefix(ct, mt+";") {
		t.Errorf("%s: Content-Type %q, want %s", r.what, ct, mt)
	}
}

// TestNegotiation checks request and response media types: Protobuf,
// YAML, and Table with each includeObject.
func TestNegotiation(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	createCM(t, s, ns, configMap("a", map[string]string{"l": "1"}, map[string]string{"k": "v"}))
	codec := protoCodec(t)

	t.Run("ProtobufRequestAndResponse", func(t *testing.T) {
		var body bytes.Buffer
		if err := codec.Encode(configMap("proto", nil, map[string]string{"p": "b"}), &body); err != nil {
			t.Fatalf("encode: %v", err)
		}
		r := s.do(t, http.MethodPost, cmPath(ns), body.Bytes(), contentType(mediaProtobuf), accept(mediaProtobuf)).wantCode(t, http.StatusCreated)
		r.wantContentType(t, mediaProtobuf)
		obj, _, err := codec.Decode(r.Body, nil, nil)
		if err != nil {
			t.Fatalf("decode Protobuf response: %v", err)
		}
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok || cm.Name != "proto" || cm.Data["p"] != "b" || cm.ResourceVersion == "" {
			t.Fatalf("Protobuf response %T %+v", obj, obj)
		}
		// Protobuf in, JSON out.
		body.Reset()
		if err := codec.Encode(configMap("proto-json", nil, nil), &body); err != nil {
			t.Fatalf("encode: %v", err)
		}
		var got corev1.ConfigMap
		s.do(t, http.MethodPost, cmPath(ns), body.Bytes(), contentType(mediaProtobuf), accept("application/json")).wantCode(t, http.StatusCreated).decode(t, &got)
		if got.Name != "proto-json" {
			t.Errorf("JSON answer to a Protobuf create: %+v", got)
		}
	})

	t.Run("ProtobufList", func(t *testing.T) {
		r := s.do(t, http.MethodGet, cmPath(ns), nil, accept(mediaProtobuf)).wantCode(t, http.StatusOK)
		r.wantContentType(t, mediaProtobuf)
		obj, _, err := codec.Decode(r.Body, nil, nil)
		if err != nil {
			t.Fatalf("decode Protobuf list: %v", err)
		}
		l, ok := obj.(*corev1.ConfigMapList)
		if !ok || len(l.Items) == 0 || l.ResourceVersion == "" {
			t.Fatalf("Protobuf list %T %+v", obj, obj)
		}
	})

	t.Run("ProtobufPreferredWithFallback", func(t *testing.T) {
		r := s.do(t, http.MethodGet, cmPath(ns, "a"), nil, accept(mediaProtobuf+", application/json")).wantCode(t, http.StatusOK)
		r.wantContentType(t, mediaProtobuf)
	})

	t.Run("YAML", func(t *testing.T) {
		r := s.do(t, http.MethodGet, cmPath(ns, "a"), nil, accept(mediaYAML)).wantCode(t, http.StatusOK)
		r.wantContentType(t, mediaYAML)
		var cm corev1.ConfigMap
		if err := yaml.UnmarshalStrict(r.Body, &cm); err != nil {
			t.Fatalf("YAML body: %v: %s", err, r.Body)
		}
		if cm.Kind != "ConfigMap" || cm.Name != "a" || cm.Data["k"] != "v" {
			t.Errorf("YAML object %+v", cm)
		}
		if json.Valid(bytes.TrimSpace(r.Body)) {
			t.Errorf("YAML answer is JSON: %s", r.Body)
		}
		r = s.do(t, http.MethodGet, cmPath(ns), nil, accept(mediaYAML)).wantCode(t, http.StatusOK)
		var l corev1.ConfigMapList
		if err := yaml.Unmarshal(r.Body, &l); err != nil || l.Kind != "ConfigMapList" || len(l.Items) == 0 {
			t.Errorf("YAML list (%v): %s", err, truncate(r.Body))
		}
	})

	t.Run("YAMLRequest", func(t *testing.T) {
		body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  key: \"1\"\n"
		var cm corev1.ConfigMap
		s.do(t, http.MethodPost, cmPath(ns), body, contentType(mediaYAML)).wantCode(t, http.StatusCreated).decode(t, &cm)
		if cm.Name != "from-yaml" || cm.Data["key"] != "1" {
			t.Errorf("created from YAML: %+v", cm)
		}
	})

	t.Run("Table", func(t *testing.T) {
		cases := []struct {
			include  string
			wantKind string // of rows[].object; "" for none
		}{
			{"", "PartialObjectMetadata"},
			{"None", ""},
			{"Metadata", "PartialObjectMetadata"},
			{"Object", "ConfigMap"},
		}
		for _, c := range cases {
			t.Run("include="+c.include, func(t *testing.T) {
				q := ""
				if c.include != "" {
					q = query("includeObject", c.include)
				}
				for _, path := range []string{cmPath(ns) + q, cmPath(ns, "a") + q} {
					r := s.do(t, http.MethodGet, path, nil, accept(tableV1)).wantCode(t, http.StatusOK)
					var tbl metav1.Table
					r.decode(t, &tbl)
					checkTable(t, path, &tbl, c.wantKind)
				}
			})
		}
		s.do(t, http.MethodGet, cmPath(ns)+query("includeObject", "Everything"), nil, accept(tableV1)).
			wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	})

	t.Run("TableWithFallback", func(t *testing.T) {
		r := s.do(t, http.MethodGet, cmPath(ns), nil, accept(tableV1+", application/json")).wantCode(t, http.StatusOK)
		var tbl metav1.Table
		r.decode(t, &tbl)
		if tbl.Kind != "Table" {
			t.Errorf("kind %q, want Table", tbl.Kind)
		}
	})

	t.Run("PartialObjectMetadataList", func(t *testing.T) {
		r := s.do(t, http.MethodGet, cmPath(ns), nil, accept("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io")).wantCode(t, http.StatusOK)
		var l metav1.PartialObjectMetadataList
		r.decode(t, &l)
		if l.Kind != "PartialObjectMetadataList" || l.APIVersion != "meta.k8s.io/v1" || len(l.Items) == 0 || l.Items[0].Name == "" {
			t.Errorf("metadata list %+v", l)
		}
		if strings.Contains(string(r.Body), `"data"`) {
			t.Errorf("metadata list carries data: %s", truncate(r.Body))
		}
	})
}

// checkTable checks a Table of configmaps: kind, the Name column first,
// one cell per column, and rows[].object of kind wantKind (none for "").
func checkTable(t *testing.T, path string, tbl *metav1.Table, wantKind string) {
	t.Helper()
	if tbl.Kind != "Table" || tbl.APIVersion != "meta.k8s.io/v1" {
		t.Errorf("%s: kind %q apiVersion %q", path, tbl.Kind, tbl.APIVersion)
	}
	if len(tbl.ColumnDefinitions) == 0 || tbl.ColumnDefinitions[0].Name != "Name" {
		t.Fatalf("%s: columns %+v, want Name first", path, tbl.ColumnDefinitions)
	}
	if len(tbl.Rows) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	for _, row := range tbl.Rows {
		if len(row.Cells) != len(tbl.ColumnDefinitions) {
			t.Errorf("%s: row with %d cells for %d columns", path, len(row.Cells), len(tbl.ColumnDefinitions))
		}
		raw := bytes.TrimSpace(row.Object.Raw)
		if wantKind == "" {
			if len(raw) != 0 && string(raw) != "null" {
				t.Errorf("%s: row object %s, want none", path, raw)
			}
			continue
		}
		var obj struct {
			Kind     string            `json:"kind"`
			Metadata metav1.ObjectMeta `json:"metadata"`
			Data     map[string]string `json:"data"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("%s: row object %s: %v", path, raw, err)
		}
		if obj.Kind != wantKind || obj.Metadata.Name == "" {
			t.Errorf("%s: row object kind %q name %q, want %s", path, obj.Kind, obj.Metadata.Name, wantKind)
		}
		if wantKind != "ConfigMap" && obj.Data != nil {
			t.Errorf("%s: %s row object carries data %v", path, obj.Kind, obj.Data)
		}
		if wantKind == "ConfigMap" && obj.Metadata.Name == "a" && obj.Data["k"] != "v" {
			t.Errorf("%s: row object of a has data %v, want k=v", path, obj.Data)
		}
	}
}
