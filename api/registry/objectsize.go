package registry

import (
	"context"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// MaxStoredObjectBytes is the largest stored form of an object the
// registry writes: etcd's default request limit (--max-request-bytes,
// 1.5 MiB), which every kube-apiserver write meets. Request bodies may be
// larger (up to 3 MiB); the objects they make may not.
const MaxStoredObjectBytes = 1536 << 10

// tooLargeMessage is etcd's error, which kube-apiserver passes on.
const tooLargeMessage = "etcdserver: request is too large"

// ObjectTooLarge is the answer to a write of an object whose stored form
// exceeds MaxStoredObjectBytes, kube-apiserver's when etcd refuses the
// write: a 500 Status with no reason and etcd's message (kubectl prints
// "Error from server: etcdserver: request is too large").
func ObjectTooLarge() *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: tooLargeMessage,
	}}
}

// IsObjectTooLarge reports an ObjectTooLarge error.
func IsObjectTooLarge(err error) bool {
	var se *apierrors.StatusError
	return errors.As(err, &se) && se.ErrStatus.Code == http.StatusInternalServerError && se.ErrStatus.Message == tooLargeMessage
}

// sizeLimited is a Storage whose writes refuse objects over
// MaxStoredObjectBytes with ObjectTooLarge before they reach the
// store, for every resource, custom ones included, and every writer,
// controllers included. A dry run writes nothing and is not refused, as
// with kube-apiserver, whose dry runs never reach etcd.
type sizeLimited struct{ Storage }

// limitObjectSize wraps s with the stored-object size limit.
func limitObjectSize(s Storage) Storage { return sizeLimited{s} }

// Create implements Storage.
func (s sizeLimited) Create(ctx context.Context, key string, obj []byte) (Object, error) {
	if len(obj) > MaxStoredObjectBytes {
		return Object{}, ObjectTooLarge()
	}
	return s.Storage.Create(ctx, key, obj)
}

// Update implements Storage.
func (s sizeLimited) Update(ctx context.Context, key string, obj []byte, pre Preconditions) (Object, error) {
	if len(obj) > MaxStoredObjectBytes {
		return Object{}, ObjectTooLarge()
	}
	return s.Storage.Update(ctx, key, obj, pre)
}

// fitManagedFields drops the managedFields of an admitted object whose
// stored form would exceed MaxStoredObjectBytes with them, as
// kube-apiserver retries a create, update or patch that etcd refused as
// too large without them (they can be large, and are safe to lose). An
// object still too large without them is refused when written.
func fitManagedFields(res *resource.Resource, obj runtime.Object) {
	m := codec.Accessor(obj)
	if len(m.GetManagedFields()) == 0 {
		return
	}
	if data, err := codec.EncodeStored(res, obj); err == nil && len(data) > MaxStoredObjectBytes {
		m.SetManagedFields(nil)
	}
}
