package api

import (
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// maxBodyBytes is kube-apiserver's request body limit.
const maxBodyBytes = 3 << 20

func typesUID(s string) types.UID { return types.UID(s) }

// readBody reads a request body of at most maxBodyBytes; a larger one is
// 413.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return nil, apierrors.NewBadRequest("reading request body: " + err.Error())
	}
	if len(body) > maxBodyBytes {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", maxBodyBytes))
	}
	return body, nil
}

// writeRequest is what every create, update and patch reads first: the
// response representation, the write parameters and the body. ok is
// false once an error has been written.
func (h *handler) writeRequest(w http.ResponseWriter, r *http.Request, optionsKind string) (out output, wp *writeParams, body []byte, ok bool) {
	out, err := negotiate(r, h.res)
	if err == nil {
		wp, err = parseWriteParams(r, optionsKind)
	}
	if err == nil {
		body, err = readBody(r)
	}
	if err != nil {
		writeStatus(w, err)
		return out, nil, nil, false
	}
	return out, wp, body, true
}

// finishWrite writes the warnings the request collected and then the
// stored object or the error.
func (h *handler) finishWrite(w http.ResponseWriter, out output, wp *writeParams, code int, data []byte, err error) {
	wp.writeWarnings(w)
	if err != nil {
		writeStatus(w, err)
		return
	}
	h.writeObject(w, out, code, data)
}
