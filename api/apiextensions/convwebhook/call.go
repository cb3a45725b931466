package convwebhook

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// call is one Convert call: the objects sent, the version asked for, the
// request's UID, and how kube's messages name it.
type call struct {
	objs    []map[string]any
	desired schema.GroupVersion
	uid     types.UID
	// gvk names the call in messages: the first object's group, version
	// and kind, as kube names the object it converts.
	gvk schema.GroupVersionKind
	// batch is set for several objects, which kube converts as a list and
	// whose objects its messages name by index.
	batch bool
}

// newCall returns the call converting objs to desired, with a fresh UID.
func newCall(objs []map[string]any, desired schema.GroupVersion) *call {
	apiVersion, _ := objs[0]["apiVersion"].(string)
	kind, _ := objs[0]["kind"].(string)
	return &call{
		objs:    objs,
		desired: desired,
		uid:     uuid.NewUUID(),
		gvk:     schema.FromAPIVersionAndKind(apiVersion, kind),
		batch:   len(objs) > 1,
	}
}

// failed is the error of a call the webhook did not answer, or answered
// with a failure or a malformed review.
func (c *call) failed(err error) error {
	return c.errorf("failed: %v", err)
}

// invalidObject is the error of the converted object at index i.
func (c *call) invalidObject(i int, err error) error {
	if c.batch {
		return c.errorf("returned invalid converted object at index %v: %v", i, err)
	}
	return c.errorf("returned invalid object at index 0: %v", err)
}

// invalidIdentity is the error of the converted object at index i that
// is not the object sent: another name, namespace, UID or kind.
func (c *call) invalidIdentity(i int, err error) error {
	if c.batch {
		return c.invalidObject(i, err)
	}
	return c.errorf("returned invalid object: %v", err)
}

// invalidMetadata is the error of the converted object at index i whose
// labels or annotations cannot be kept.
func (c *call) invalidMetadata(i int, err error) error {
	if c.batch {
		return c.errorf("returned invalid metadata in object at index %v: %v", i, err)
	}
	return c.errorf("returned invalid metadata: %v", err)
}

// errorf is kube's "conversion webhook for <gvk> <what>" as a 500.
func (c *call) errorf(format string, args ...any) error {
	return internal(fmt.Sprintf("conversion webhook for %v ", c.gvk) + fmt.Sprintf(format, args...))
}

// internal is a failed conversion as kube-apiserver answers it: the
// converter's error is not an API status, so the request fails with 500,
// no reason, and the error's text as the message.
func internal(message string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: message,
	}}
}
