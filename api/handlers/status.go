package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/codec"
)

// WriteStatus writes err as a Status object with its HTTP code; an error
// that is not a StatusError is a 500.
func WriteStatus(w http.ResponseWriter, err error) {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		se = apierrors.NewInternalError(err)
	}
	st := se.ErrStatus
	st.Status = metav1.StatusFailure
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	WriteStatusObject(w, int(st.Code), &st)
}

// WriteStatusObject writes a Status, as Protobuf when the client prefers
// it (see StatusWriter), else as JSON.
func WriteStatusObject(w http.ResponseWriter, code int, st *metav1.Status) {
	st.Kind, st.APIVersion = "Status", "v1"
	if sw, ok := w.(*StatusWriter); ok && sw.protobuf {
		if body, err := sw.codecs.Protobuf(st); err == nil {
			w.Header().Set("Content-Type", codec.MediaProtobuf)
			w.WriteHeader(code)
			_, _ = w.Write(body)
			return
		}
	}
	w.Header().Set("Content-Type", codec.MediaJSON)
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(st)
}

// WriteJSON writes v as JSON with the given status code.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", codec.MediaJSON)
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
