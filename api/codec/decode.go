package codec

import (
	"bytes"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/raftapi/raftapi/api/resource"
)

// Decode decodes body, of media type mt, into the working form of res.
// Unknown and duplicate fields are handled by the fieldValidation
// directive (metav1.FieldValidationIgnore, Warn or Strict): dropped,
// returned as warnings, or refused with 400.
func (c *Codecs) Decode(res *resource.Resource, mt string, body []byte, fieldValidation string) (runtime.Object, []string, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil, apierrors.NewBadRequest("the body of the request was empty")
	}
	if !res.Typed() {
		obj, err := decodeUntyped(res, mt, body)
		return obj, nil, err
	}
	var s runtime.Serializer
	switch mt {
	case MediaJSON:
		s = c.StrictJSON
	case MediaYAML:
		s = c.StrictYAML
	case MediaProtobuf:
		s = c.Proto
	default:
		return nil, nil, UnsupportedMediaType(mt, BodyMediaTypes)
	}
	gvk := res.GroupVersionKind()
	obj, actual, err := s.Decode(body, &gvk, nil)
	var warnings []string
	if strictErr, ok := runtime.AsStrictDecodingError(err); ok && obj != nil {
		if warnings, err = strict(strictErr.Errors(), fieldValidation); err != nil {
			return nil, nil, err
		}
	} else if err != nil {
		return nil, nil, apierrors.NewBadRequest(decodeErrorMessage(err))
	}
	if err := checkKind(res, actual); err != nil {
		return nil, nil, err
	}
	return obj, warnings, nil
}

// strict applies the fieldValidation directive to the unknown and
// duplicate fields a strict decoder reported.
func strict(errs []error, fieldValidation string) ([]string, error) {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	switch fieldValidation {
	case metav1.FieldValidationIgnore:
		return nil, nil
	case metav1.FieldValidationStrict:
		return nil, apierrors.NewBadRequest("strict decoding error: " + strings.Join(msgs, ", "))
	}
	return msgs, nil
}

func decodeErrorMessage(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "no kind") {
		return msg
	}
	return "the body of the request was in an unknown format: " + msg
}

// checkKind refuses a body of another kind or version than the URL's.
func checkKind(res *resource.Resource, actual *schema.GroupVersionKind) error {
	want := res.GroupVersionKind()
	if actual == nil || *actual == want {
		return nil
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)",
		actual.GroupVersion().String(), want.GroupVersion().String()))
}

// decodeUntyped decodes a body of a resource without a Go type.
func decodeUntyped(res *resource.Resource, mt string, body []byte) (runtime.Object, error) {
	switch mt {
	case MediaJSON:
	case MediaYAML:
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, apierrors.NewBadRequest("the body of the request was in an unknown format: " + err.Error())
		}
		body = j
	default:
		return nil, UnsupportedMediaType(mt, []string{MediaJSON, MediaYAML})
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(body); err != nil {
		return nil, apierrors.NewBadRequest("the body of the request was in an unknown format: " + err.Error())
	}
	gvk := u.GroupVersionKind()
	if err := checkKind(res, &gvk); err != nil {
		return nil, err
	}
	return u, nil
}
