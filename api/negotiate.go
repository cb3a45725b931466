package api

import (
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/resource"
)

// Media types the API speaks.
const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// encoding is a response's wire form.
type encoding int

const (
	encJSON encoding = iota
	encYAML
	encProtobuf
)

// view is what a response holds: the objects themselves, a Table of
// them, or only their metadata.
type view int

const (
	viewObject view = iota
	viewTable
	viewMetadata
)

// output is a negotiated response representation.
type output struct {
	enc  encoding
	view view
	// metaVersion is the meta.k8s.io version a Table or metadata view was
	// asked in (v1 or v1beta1).
	metaVersion string
	// include is a Table's includeObject parameter.
	include string
	// gzip is set when the client accepts a gzip-encoded response.
	gzip bool
}

// contentType returns the response Content-Type.
func (o output) contentType() string {
	switch o.enc {
	case encYAML:
		return mediaYAML
	case encProtobuf:
		return mediaProtobuf
	}
	return mediaJSON
}

type acceptEntry struct {
	typ    string
	params map[string]string
	q      float64
}

// parseAccept returns the entries of an Accept header, highest quality
// first, stable among equals.
func parseAccept(h string) []acceptEntry {
	var out []acceptEntry
	for _, part := range strings.Split(h, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		typ, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				q = f
			}
		}
		out = append(out, acceptEntry{typ: typ, params: params, q: q})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].q > out[j].q })
	return out
}

// negotiate picks the response representation for res from the request's
// Accept header; a request for none the API speaks is 406.
func negotiate(r *http.Request, res *resource.Resource) (output, error) {
	o, err := negotiateType(r, res)
	o.gzip = acceptsGzip(r)
	return o, err
}

// negotiateType picks the representation from Accept and includeObject.
func negotiateType(r *http.Request, res *resource.Resource) (output, error) {
	if inc := r.URL.Query().Get("includeObject"); inc != "" && inc != includeNone && inc != includeMetadata && inc != includeObject {
		return output{}, apierrors.NewBadRequest("includeObject must be one of None, Metadata, Object")
	}
	h := r.Header.Get("Accept")
	if strings.TrimSpace(h) == "" {
		return output{}, nil
	}
	for _, a := range parseAccept(h) {
		if a.q <= 0 {
			continue
		}
		if o, ok := match(a, res); ok {
			o.include = r.URL.Query().Get("includeObject")
			return o, nil
		}
	}
	return output{}, notAcceptable(res != nil && res.Typed())
}

// match returns the output one Accept entry asks for, if served.
func match(a acceptEntry, res *resource.Resource) (output, bool) {
	as, g, v := a.params["as"], a.params["g"], a.params["v"]
	switch a.typ {
	case "*/*", "application/*":
		return output{}, true
	case mediaJSON:
	case mediaYAML:
		return output{enc: encYAML}, as == ""
	case mediaProtobuf:
		return output{enc: encProtobuf}, as == "" && res != nil && res.Typed()
	default:
		return output{}, false
	}
	if as == "" {
		return output{}, true
	}
	if g != metav1.GroupName || (v != "v1" && v != "v1beta1") || res == nil {
		return output{}, false
	}
	switch as {
	case "Table":
		return output{view: viewTable, metaVersion: v}, true
	case "PartialObjectMetadata", "PartialObjectMetadataList":
		return output{view: viewMetadata, metaVersion: v}, true
	}
	return output{}, false
}

func notAcceptable(protobuf bool) error {
	types := []string{mediaJSON, mediaYAML}
	if protobuf {
		types = append(types, mediaProtobuf)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join(types, ", "),
	}}
}

func unsupportedMediaType(ct string, accepted []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(accepted, ", "),
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: "unsupported media type " + ct}}},
	}}
}
