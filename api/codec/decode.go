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
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// Decode decodes body, of media type mt, into the working form of res.
// Unknown and duplicate fields are handled by the fieldValidation
// directive (metav1.FieldValidationIgnore, Warn or Strict): dropped,
// returned as warnings, or refused with the runtime strict decoding error
// (runtime.IsStrictDecodingError), which the caller turns into its verb's
// Status (BodyError, PatchedError). Other errors are Status errors.
func (c *Codecs) Decode(res *resource.Resource, mt string, body []byte, fieldValidation string) (runtime.Object, []string, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil, apierrors.NewBadRequest("the body of the request was empty")
	}
	if !res.Typed() {
		return decodeUntyped(res, mt, body, fieldValidation)
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
		return nil, runtime.NewStrictDecodingError(errs)
	}
	return msgs, nil
}

// BodyError is the Status of a create or update whose body failed to
// decode: a strict decoding error is kube-apiserver's 400 naming the
// kind ("Widget in version \"v1\" cannot be handled as a Widget: strict
// decoding error: unknown field \"spec.x\""); others pass unchanged.
func BodyError(res *resource.Resource, err error) error {
	if !runtime.IsStrictDecodingError(err) {
		return err
	}
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", res.Kind, res.Version, res.Kind, err))
}

// PatchedError is the Status of a patch whose result failed to decode: a
// strict decoding error is kube-apiserver's 422 on the field "patch",
// whose value is the patched object; others pass unchanged.
func PatchedError(patched []byte, err error) error {
	if !runtime.IsStrictDecodingError(err) {
		return err
	}
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), string(patched), err.Error())})
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

// Decoders of bodies without a Go type: they report duplicate fields as
// strict decoding errors, as kube-apiserver's do for custom resources.
var (
	untypedJSON = jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, untypedScheme{}, untypedScheme{}, jsonserializer.SerializerOptions{Strict: true})
	untypedYAML = jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, untypedScheme{}, untypedScheme{}, jsonserializer.SerializerOptions{Yaml: true, Strict: true})
)

// decodeUntyped decodes a body of a resource without a Go type. A
// resource with a Schema has the body coerced to it: the fields it prunes
// are unknown fields for fieldValidation, beside duplicate ones.
func decodeUntyped(res *resource.Resource, mt string, body []byte, fieldValidation string) (runtime.Object, []string, error) {
	var s runtime.Serializer
	switch mt {
	case MediaJSON:
		s = untypedJSON
	case MediaYAML:
		s = untypedYAML
	default:
		return nil, nil, UnsupportedMediaType(mt, []string{MediaJSON, MediaYAML})
	}
	u := &unstructured.Unstructured{}
	var strictErrs []error
	if _, _, err := s.Decode(body, nil, u); err != nil {
		strictErr, ok := runtime.AsStrictDecodingError(err)
		if !ok {
			return nil, nil, apierrors.NewBadRequest(decodeErrorMessage(err))
		}
		strictErrs = strictErr.Errors()
	}
	gvk := u.GroupVersionKind()
	if err := checkKind(res, &gvk); err != nil {
		return nil, nil, err
	}
	if res.Schema != nil {
		unknown, err := res.Schema.Decoded(u.Object)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		for _, path := range unknown {
			strictErrs = append(strictErrs, fmt.Errorf("unknown field %q", path))
		}
	}
	if len(strictErrs) == 0 {
		return u, nil, nil
	}
	warnings, err := strict(strictErrs, fieldValidation)
	if err != nil {
		return nil, nil, err
	}
	return u, warnings, nil
}
