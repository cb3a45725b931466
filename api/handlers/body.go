package handlers

import (
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
	"github.com/raftapi/raftapi/api/registry"
)

// maxBodyBytes is kube-apiserver's request body limit.
const maxBodyBytes = 3 << 20

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

// writeRequest is what a create, update or patch reads first.
type writeRequest struct {
	out  negotiation.Output
	opts registry.WriteOptions
	body []byte
	// warnings are those of decoding the body.
	warnings []string
}

// readWriteRequest reads the response representation, the write
// parameters and the body; ok is false once an error has been written.
func (s *Scope) readWriteRequest(w http.ResponseWriter, r *http.Request, optionsKind string) (wr writeRequest, ok bool) {
	out, err := negotiation.Negotiate(r, s.Resource)
	wr.out = out
	if err == nil {
		wr.opts, err = parseWriteParams(r, optionsKind)
	}
	if err == nil {
		wr.body, err = readBody(r)
	}
	if err != nil {
		WriteStatus(w, err)
		return wr, false
	}
	return wr, true
}

// decodeBody decodes the body of a create or update into the working
// form of the resource, keeping the field-validation warnings.
func (s *Scope) decodeBody(r *http.Request, wr *writeRequest) (runtime.Object, error) {
	mt, err := negotiation.RequestMediaType(r)
	if err != nil {
		return nil, err
	}
	obj, warnings, err := s.Codecs.Decode(s.Resource, mt, wr.body, wr.opts.FieldValidation)
	wr.warnings = append(wr.warnings, warnings...)
	return obj, codec.BodyError(s.Resource, err)
}

// finishWrite writes the warnings of the request and then the stored
// object or the error.
func (s *Scope) finishWrite(w http.ResponseWriter, wr writeRequest, code int, res registry.Result, err error) {
	writeWarnings(w, wr.warnings)
	if err != nil {
		WriteStatus(w, err)
		return
	}
	writeWarnings(w, res.Warnings)
	s.encoder().writeObject(w, wr.out, code, res.Data)
}
