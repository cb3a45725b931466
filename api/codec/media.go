package codec

import (
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Media types the API speaks.
const (
	MediaJSON     = "application/json"
	MediaYAML     = "application/yaml"
	MediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// BodyMediaTypes are the media types a typed resource's body may have.
var BodyMediaTypes = []string{MediaJSON, MediaYAML, MediaProtobuf}

// NotAcceptable is the 406 of a request whose Accept header names no
// representation the API serves; protobuf says whether Protobuf is one.
func NotAcceptable(protobuf bool) error {
	types := []string{MediaJSON, MediaYAML}
	if protobuf {
		types = append(types, MediaProtobuf)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join(types, ", "),
	}}
}

// UnsupportedMediaType is the 415 of a body of media type ct, listing the
// accepted ones.
func UnsupportedMediaType(ct string, accepted []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(accepted, ", "),
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: "unsupported media type " + ct}}},
	}}
}
