package negotiation

import (
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/api/resource"
)

// Encoding is a response's wire form.
type Encoding int

// The wire forms of a resource response.
const (
	JSON Encoding = iota
	YAML
	Protobuf
)

// View is what a response holds: the objects themselves, a Table of
// them, or only their metadata.
type View int

// The views of a resource response.
const (
	ViewObject View = iota
	ViewTable
	ViewMetadata
)

// Values of the includeObject parameter of Table requests.
const (
	IncludeNone     = "None"
	IncludeMetadata = "Metadata"
	IncludeObject   = "Object"
)

// Output is a negotiated response representation.
type Output struct {
	Enc  Encoding
	View View
	// MetaVersion is the meta.k8s.io version a Table or metadata view was
	// asked in (v1 or v1beta1).
	MetaVersion string
	// Include is a Table's includeObject parameter.
	Include string
	// Gzip is set when the client accepts a gzip-encoded response.
	Gzip bool
}

// ContentType returns the response Content-Type.
func (o Output) ContentType() string {
	switch o.Enc {
	case YAML:
		return codec.MediaYAML
	case Protobuf:
		return codec.MediaProtobuf
	}
	return codec.MediaJSON
}

// Negotiate picks the response representation for res (nil for a
// response that is not a resource's) from the request's Accept header; a
// request for none the API speaks is 406.
func Negotiate(r *http.Request, res *resource.Resource) (Output, error) {
	o, err := negotiateType(r, res)
	o.Gzip = AcceptsGzip(r)
	return o, err
}

// negotiateType picks the representation from Accept and includeObject.
func negotiateType(r *http.Request, res *resource.Resource) (Output, error) {
	inc, _ := request.Query(r, "includeObject")
	if inc != "" && inc != IncludeNone && inc != IncludeMetadata && inc != IncludeObject {
		return Output{}, apierrors.NewBadRequest("includeObject must be one of None, Metadata, Object")
	}
	h := r.Header.Get("Accept")
	if strings.TrimSpace(h) == "" {
		return Output{}, nil
	}
	for _, a := range ParseAccept(h) {
		if a.Q <= 0 {
			continue
		}
		if o, ok := match(a, res); ok {
			o.Include = inc
			return o, nil
		}
	}
	return Output{}, codec.NotAcceptable(res != nil && res.Typed())
}

// match returns the output one Accept entry asks for, if served.
func match(a Accept, res *resource.Resource) (Output, bool) {
	as, g, v := a.Params["as"], a.Params["g"], a.Params["v"]
	switch a.Type {
	case "*/*", "application/*":
		return Output{}, true
	case codec.MediaJSON:
	case codec.MediaYAML:
		return Output{Enc: YAML}, as == ""
	case codec.MediaProtobuf:
		return Output{Enc: Protobuf}, as == "" && res != nil && res.Typed()
	default:
		return Output{}, false
	}
	if as == "" {
		return Output{}, true
	}
	if g != metav1.GroupName || (v != "v1" && v != "v1beta1") || res == nil {
		return Output{}, false
	}
	switch as {
	case "Table":
		return Output{View: ViewTable, MetaVersion: v}, true
	case "PartialObjectMetadata", "PartialObjectMetadataList":
		return Output{View: ViewMetadata, MetaVersion: v}, true
	}
	return Output{}, false
}
