package api

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// requestMediaType returns the media type of the request body; an absent
// Content-Type is JSON.
func requestMediaType(r *http.Request) (string, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return mediaJSON, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", unsupportedMediaType(ct, bodyMediaTypes)
	}
	return mt, nil
}

var bodyMediaTypes = []string{mediaJSON, mediaYAML, mediaProtobuf}

// decodeBody decodes a create or update body into the working form of
// res. Unknown and duplicate fields are handled by the fieldValidation
// directive: dropped, reported as warnings, or refused with 400.
func (h *handler) decodeBody(r *http.Request, body []byte, wp *writeParams) (runtime.Object, error) {
	mt, err := requestMediaType(r)
	if err != nil {
		return nil, err
	}
	return h.decodeAs(mt, body, wp)
}

// decodeAs decodes body of media type mt into the working form of res.
func (h *handler) decodeAs(mt string, body []byte, wp *writeParams) (runtime.Object, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, apierrors.NewBadRequest("the body of the request was empty")
	}
	if !h.res.Typed() {
		return h.decodeUntyped(mt, body)
	}
	var s runtime.Serializer
	switch mt {
	case mediaJSON:
		s = h.server.codecs.strictJSON
	case mediaYAML:
		s = h.server.codecs.strictYAML
	case mediaProtobuf:
		s = h.server.codecs.proto
	default:
		return nil, unsupportedMediaType(mt, bodyMediaTypes)
	}
	gvk := h.res.GroupVersionKind()
	obj, actual, err := s.Decode(body, &gvk, nil)
	if strictErr, ok := runtime.AsStrictDecodingError(err); ok && obj != nil {
		if err := wp.strict(strictErr.Errors()); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, apierrors.NewBadRequest(decodeErrorMessage(err))
	}
	if err := h.checkKind(actual); err != nil {
		return nil, err
	}
	return obj, nil
}

func decodeErrorMessage(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "no kind") {
		return msg
	}
	return "the body of the request was in an unknown format: " + msg
}

// checkKind refuses a body of another kind or version than the URL's.
func (h *handler) checkKind(actual *schema.GroupVersionKind) error {
	want := h.res.GroupVersionKind()
	if actual == nil || *actual == want {
		return nil
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)",
		actual.GroupVersion().String(), want.GroupVersion().String()))
}

// decodeUntyped decodes a body of a resource without a Go type.
func (h *handler) decodeUntyped(mt string, body []byte) (runtime.Object, error) {
	switch mt {
	case mediaJSON:
	case mediaYAML:
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, apierrors.NewBadRequest("the body of the request was in an unknown format: " + err.Error())
		}
		body = j
	default:
		return nil, unsupportedMediaType(mt, []string{mediaJSON, mediaYAML})
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(body); err != nil {
		return nil, apierrors.NewBadRequest("the body of the request was in an unknown format: " + err.Error())
	}
	gvk := u.GroupVersionKind()
	if err := h.checkKind(&gvk); err != nil {
		return nil, err
	}
	return u, nil
}
