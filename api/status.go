package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
)

// storeError maps a store error to the Status kube-apiserver would send.
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

func tooLargeResourceVersion(e *raftstore.Error) *apierrors.StatusError {
	se := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", e.Rev, e.Rev), int(max(e.RetryAfter.Seconds(), 1)))
	se.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return se
}

// writeStatus writes err as a Status object with its HTTP code.
func writeStatus(w http.ResponseWriter, err error) {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		se = apierrors.NewInternalError(err)
	}
	st := se.ErrStatus
	st.Status = metav1.StatusFailure
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	writeStatusObject(w, int(st.Code), &st)
}

// writeStatusObject writes a Status, as Protobuf when the client prefers
// it (see statusWriter), else as JSON.
func writeStatusObject(w http.ResponseWriter, code int, st *metav1.Status) {
	st.Kind, st.APIVersion = "Status", "v1"
	if sw, ok := w.(*statusWriter); ok && sw.protobuf {
		var buf bytes.Buffer
		if err := sw.codecs.proto.Encode(st, &buf); err == nil {
			w.Header().Set("Content-Type", mediaProtobuf)
			w.WriteHeader(code)
			_, _ = w.Write(buf.Bytes())
			return
		}
	}
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(st)
}

// writeJSON writes v with the given status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
