package kubeapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Error is a response with an unexpected HTTP status, with the message
// of its Status body when it has one.
type Error struct {
	Method, Path string
	Code         int
	Reason       string // the Status reason: AlreadyExists, Conflict, ...
	Message      string
}

func (e *Error) Error() string {
	return fmt.Sprintf("kubeapi: %s %s: %d %s: %s", e.Method, e.Path, e.Code, e.Reason, e.Message)
}

func newError(method, path string, code int, body []byte) *Error {
	var st struct {
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &st) != nil || st.Message == "" {
		st.Message = string(truncate(body, 200))
	}
	return &Error{Method: method, Path: path, Code: code, Reason: st.Reason, Message: st.Message}
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// IsAlreadyExists reports a 409 AlreadyExists.
func IsAlreadyExists(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == http.StatusConflict && e.Reason == "AlreadyExists"
}

// IsNotFound reports a 404.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == http.StatusNotFound
}
