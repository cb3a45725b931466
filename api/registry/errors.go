package registry

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
)

// StatusError maps a Storage error about object name of res to the
// Status kube-apiserver would send; a StatusError passes through and any
// other error is a 500.
func StatusError(err error, res *resource.Resource, name string) *apierrors.StatusError {
	return storeError(err, res, name)
}

func storeError(err error, res *resource.Resource, name string) *apierrors.StatusError {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se
	}
	var e *raftstore.Error
	if !errors.As(err, &e) {
		return apierrors.NewInternalError(err)
	}
	gr := res.GroupResource()
	switch e.Code {
	case raftstore.ErrCodeNotFound:
		return apierrors.NewNotFound(gr, name)
	case raftstore.ErrCodeAlreadyExists:
		return apierrors.NewAlreadyExists(gr, name)
	case raftstore.ErrCodeConflict:
		return apierrors.NewConflict(gr, name, errors.New(conflictMessage))
	case raftstore.ErrCodeInvalid:
		return apierrors.NewBadRequest(e.Error())
	case raftstore.ErrCodeExpired:
		return expired(e)
	case raftstore.ErrCodeTooLargeResourceVersion:
		return tooLargeResourceVersion(e)
	case raftstore.ErrCodeBadRequest:
		return apierrors.NewBadRequest(e.Msg)
	case raftstore.ErrCodeUnavailable:
		return apierrors.NewServiceUnavailable(e.Error())
	case raftstore.ErrCodeUnknownOutcome:
		return apierrors.NewTimeoutError(fmt.Sprintf("the outcome of the write is unknown: %v", e), 1)
	}
	return apierrors.NewInternalError(err)
}

const conflictMessage = "the object has been modified; please apply your changes to the latest version and try again"

func expired(e *raftstore.Error) *apierrors.StatusError {
	se := apierrors.NewResourceExpired(fmt.Sprintf("The resourceVersion for the provided list is too old: %s", e.Msg))
	if e.Continue != "" {
		se.ErrStatus.ListMeta.Continue = e.Continue
		se.ErrStatus.Message = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
	}
	return se
}

// tooLargeResourceVersion is kube-apiserver's 504 for a resourceVersion
// this node has not reached: the message names the version asked for and
// the node's current one.
func tooLargeResourceVersion(e *raftstore.Error) *apierrors.StatusError {
	se := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", e.Rev, e.Current), int(max(e.RetryAfter.Seconds(), 1)))
	se.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return se
}
