package convwebhook

import (
	"encoding/json"
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The ConversionReview versions a webhook may speak.
const (
	reviewV1      = "v1"
	reviewV1beta1 = "v1beta1"
)

// reviewVersion is the first of versions that raftapi speaks, as kube
// picks it, or "" when there is none.
func reviewVersion(versions []string) string {
	for _, v := range versions {
		if v == reviewV1 || v == reviewV1beta1 {
			return v
		}
	}
	return ""
}

// roundTrip sends c's objects to the webhook in one ConversionReview of
// version review and returns the converted objects of a valid answer,
// one per object sent.
func (cv *Converter) roundTrip(c *call) ([]runtime.RawExtension, error) {
	if cv.review == "" {
		return nil, internal("no supported conversion review versions")
	}
	body, err := c.request(cv.review)
	if err != nil {
		return nil, c.failed(err)
	}
	answer, err := cv.post(body)
	if err != nil {
		return nil, c.failed(err)
	}
	converted, err := c.response(cv.review, answer)
	if err != nil {
		return nil, c.failed(err)
	}
	if len(converted) != len(c.objs) {
		return nil, c.errorf("returned %d objects, expected %d", len(converted), len(c.objs))
	}
	return converted, nil
}

// request returns the ConversionReview of c in version review, encoded.
// Like kube, it carries an empty response.
func (c *call) request(review string) ([]byte, error) {
	objects := make([]runtime.RawExtension, len(c.objs))
	for i, o := range c.objs {
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("encode object at index %d: %w", i, err)
		}
		objects[i].Raw = raw
	}
	if review == reviewV1beta1 {
		return json.Marshal(&apiextensionsv1beta1.ConversionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: apiextensionsv1beta1.SchemeGroupVersion.String(), Kind: "ConversionReview"},
			Request:  &apiextensionsv1beta1.ConversionRequest{UID: c.uid, DesiredAPIVersion: c.desired.String(), Objects: objects},
			Response: &apiextensionsv1beta1.ConversionResponse{},
		})
	}
	return json.Marshal(&apiextensionsv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "ConversionReview"},
		Request:  &apiextensionsv1.ConversionRequest{UID: c.uid, DesiredAPIVersion: c.desired.String(), Objects: objects},
		Response: &apiextensionsv1.ConversionResponse{},
	})
}

// response checks the webhook's answer to c, a ConversionReview of
// version review, and returns its converted objects. A v1 answer must be
// a v1 ConversionReview for c's UID; kube never checked either in v1beta1
// and still does not. Either way the result must be Success.
func (c *call) response(review string, answer []byte) ([]runtime.RawExtension, error) {
	if err := checkJSON(answer); err != nil {
		return nil, err
	}
	if review == reviewV1beta1 {
		var r apiextensionsv1beta1.ConversionReview
		if err := json.Unmarshal(answer, &r); err != nil {
			return nil, err
		}
		if r.Response == nil {
			return nil, errors.New("no response provided")
		}
		if err := resultError(r.Response.Result); err != nil {
			return nil, err
		}
		return r.Response.ConvertedObjects, nil
	}
	var r apiextensionsv1.ConversionReview
	if err := json.Unmarshal(answer, &r); err != nil {
		return nil, err
	}
	if want := apiextensionsv1.SchemeGroupVersion.WithKind("ConversionReview"); r.GroupVersionKind() != want {
		return nil, fmt.Errorf("expected webhook response of %v, got %v", want, r.GroupVersionKind())
	}
	if r.Response == nil {
		return nil, errors.New("no response provided")
	}
	if r.Response.UID != c.uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", c.uid, r.Response.UID)
	}
	if err := resultError(r.Response.Result); err != nil {
		return nil, err
	}
	return r.Response.ConvertedObjects, nil
}

// checkJSON fails, as kube's decoder does, when answer is not a JSON
// object whose apiVersion and kind can be read.
func checkJSON(answer []byte) error {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(answer, &tm); err != nil {
		return fmt.Errorf("couldn't get version/kind; json parse error: %v", err)
	}
	return nil
}

// resultError is the failure a review's result reports: its message, or
// its status when it has none.
func resultError(result metav1.Status) error {
	if result.Status == metav1.StatusSuccess {
		return nil
	}
	if result.Message != "" {
		return errors.New(result.Message)
	}
	return fmt.Errorf("response.result.status was '%s', not 'Success'", result.Status)
}
