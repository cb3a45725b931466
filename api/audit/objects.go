package audit

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"mime"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"sigs.k8s.io/yaml"
)

// logRequestBody records what the request body tells, as kube's
// LogRequestObject and LogRequestPatch do: for a create or update the
// objectRef's missing namespace, name, uid and resourceVersion are taken
// from the object; from level Request on, the body itself, as JSON.
func (rec *record) logRequestBody() {
	body := rec.requestBody()
	if len(body) == 0 {
		return
	}
	obj, ok := rec.a.toJSON(rec.req.Header.Get("Content-Type"), body)
	if !ok {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.verb == "create" || rec.verb == "update" {
		fillObjectRef(rec.event.ObjectRef, obj)
	}
	if rec.cfg.atLeast(auditv1.LevelRequest) {
		rec.event.RequestObject = rec.unknown(obj)
	}
}

// logResponseBody records what the response body tells, as kube's
// LogResponseObject does: a Status becomes the event's responseStatus;
// at level RequestResponse a Kubernetes object is recorded as JSON.
func (rec *record) logResponseBody(rw *responseWriter) {
	body := rw.capture.bytes()
	if len(body) == 0 {
		return
	}
	h := rw.Header()
	body, ok := decodeContent(h.Get("Content-Encoding"), body)
	if !ok {
		return
	}
	obj, ok := rec.a.toJSON(h.Get("Content-Type"), body)
	if !ok || !isAPIObject(obj) {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if st, ok := asStatus(obj); ok {
		// The code is the response's, as kube records it once the
		// Status is written.
		rec.event.ResponseStatus = &metav1.Status{Status: st.Status, Message: st.Message, Reason: st.Reason, Details: st.Details, Code: int32(rw.code)}
	}
	if rec.cfg.atLeast(auditv1.LevelRequestResponse) {
		rec.event.ResponseObject = rec.unknown(obj)
	}
}

// unknown wraps a JSON object for the event, without its managedFields
// when the policy says so.
func (rec *record) unknown(obj []byte) *runtime.Unknown {
	if rec.cfg.omitManagedFields {
		obj = withoutManagedFields(obj)
	}
	return &runtime.Unknown{Raw: obj, ContentType: runtime.ContentTypeJSON}
}

// decodeContent undoes a gzip Content-Encoding.
func decodeContent(encoding string, body []byte) ([]byte, bool) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "":
		return body, true
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, false
		}
		out, err := io.ReadAll(io.LimitReader(zr, maxObjectBody+1))
		if err != nil || len(out) > maxObjectBody {
			return nil, false
		}
		return out, true
	}
	return nil, false
}

// Media types whose bodies the events record.
const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// toJSON returns a body of the given Content-Type as a JSON object: JSON
// (and the JSON patch types) as it is, YAML (and apply patches)
// converted, Kubernetes Protobuf decoded with the configured decoder.
// Anything else, or a body that does not parse, is not recorded.
func (a *Auditor) toJSON(contentType string, body []byte) ([]byte, bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, false
	}
	switch {
	case mt == mediaJSON || strings.HasSuffix(mt, "+json"):
		return compactObject(body)
	case mt == mediaYAML || strings.HasSuffix(mt, "+yaml"):
		js, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, false
		}
		return compactObject(js)
	case mt == mediaProtobuf && a.protobuf != nil:
		return a.protobufToJSON(body)
	}
	return nil, false
}

// compactObject returns JSON on one line, if it is a JSON object or
// array (a JSON patch).
func compactObject(js []byte) ([]byte, bool) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, js); err != nil {
		return nil, false
	}
	out := buf.Bytes()
	if len(out) == 0 || (out[0] != '{' && out[0] != '[') {
		return nil, false
	}
	return out, true
}

// protobufToJSON decodes a Protobuf body into its object and encodes
// that in JSON, with its kind and apiVersion.
func (a *Auditor) protobufToJSON(body []byte) ([]byte, bool) {
	obj, gvk, err := a.protobuf.Decode(body, nil, nil)
	if err != nil {
		return nil, false
	}
	if gvk != nil {
		obj.GetObjectKind().SetGroupVersionKind(*gvk)
	}
	js, err := json.Marshal(obj)
	return js, err == nil
}

// apiObjectHeader is the part of an object the events look at.
type apiObjectHeader struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Name            string    `json:"name"`
		Namespace       string    `json:"namespace"`
		UID             types.UID `json:"uid"`
		ResourceVersion string    `json:"resourceVersion"`
	} `json:"metadata"`
}

func header(obj []byte) (apiObjectHeader, bool) {
	var h apiObjectHeader
	if len(obj) == 0 || obj[0] != '{' {
		return h, false
	}
	return h, json.Unmarshal(obj, &h) == nil
}

// isAPIObject reports whether a response body is a Kubernetes object
// (kind and apiVersion), which kube records; other documents (/version,
// OpenAPI) it does not.
func isAPIObject(obj []byte) bool {
	h, ok := header(obj)
	return ok && h.Kind != "" && h.APIVersion != ""
}

// asStatus decodes a v1 Status.
func asStatus(obj []byte) (metav1.Status, bool) {
	var st metav1.Status
	if h, ok := header(obj); !ok || h.Kind != "Status" || h.APIVersion != "v1" {
		return st, false
	}
	return st, json.Unmarshal(obj, &st) == nil
}

// fillObjectRef completes ref from an object's metadata where the
// request path left it empty.
func fillObjectRef(ref *auditv1.ObjectReference, obj []byte) {
	h, ok := header(obj)
	if ref == nil || !ok {
		return
	}
	m := h.Metadata
	setIfEmpty(&ref.Namespace, m.Namespace)
	setIfEmpty(&ref.Name, m.Name)
	setIfEmpty(&ref.ResourceVersion, m.ResourceVersion)
	if ref.UID == "" {
		ref.UID = m.UID
	}
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// isDelete reports the verbs of a DELETE.
func isDelete(verb string) bool { return verb == "delete" || verb == "deletecollection" }
