package raftstore

import (
	"errors"
	"fmt"
	"time"
)

// ErrorCode classifies a store error so the API layer can map it to an
// HTTP status.
type ErrorCode uint8

// Store error codes.
const (
	// ErrCodeNotFound: the key does not exist (404).
	ErrCodeNotFound ErrorCode = iota + 1
	// ErrCodeAlreadyExists: create of an existing key (409).
	ErrCodeAlreadyExists
	// ErrCodeConflict: a resourceVersion or UID precondition failed (409).
	ErrCodeConflict
	// ErrCodeInvalid: the command or object is malformed (422/400).
	ErrCodeInvalid
	// ErrCodeExpired: the requested revision has been compacted (410).
	ErrCodeExpired
	// ErrCodeTooLargeResourceVersion: the requested revision is not applied
	// on this node yet and did not arrive in time (504, Retry-After).
	ErrCodeTooLargeResourceVersion
	// ErrCodeBadRequest: an undecodable or tampered continue token (400).
	ErrCodeBadRequest
	// ErrCodeUnavailable: the request definitely did not take effect (no
	// leader, leader unreachable before sending, shutting down) (503).
	ErrCodeUnavailable
	// ErrCodeUnknownOutcome: the write may or may not have been committed
	// (leadership lost in flight, connection lost after sending, deadline)
	// (504).
	ErrCodeUnknownOutcome
)

var codeNames = map[ErrorCode]string{
	ErrCodeNotFound:                "NotFound",
	ErrCodeAlreadyExists:           "AlreadyExists",
	ErrCodeConflict:                "Conflict",
	ErrCodeInvalid:                 "Invalid",
	ErrCodeExpired:                 "Expired",
	ErrCodeTooLargeResourceVersion: "TooLargeResourceVersion",
	ErrCodeBadRequest:              "BadRequest",
	ErrCodeUnavailable:             "Unavailable",
	ErrCodeUnknownOutcome:          "UnknownOutcome",
}

func (c ErrorCode) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("ErrorCode(%d)", uint8(c))
}

// Error is a typed store error.
type Error struct {
	Code ErrorCode
	Key  string
	// Rev is the revision the error is about: the current revision for
	// Conflict, the requested one for Expired and TooLargeResourceVersion.
	Rev uint64
	// Current is, on TooLargeResourceVersion, the revision this node had
	// applied when it gave up waiting.
	Current uint64
	// RetryAfter is a hint for TooLargeResourceVersion and Unavailable.
	RetryAfter time.Duration
	Msg        string
	// Continue, on an Expired continuation, is a fresh token that resumes
	// the list after the same key at the current revision (an inconsistent
	// continuation).
	Continue string
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string {
	s := "raftstore: " + e.Code.String()
	if e.Key != "" {
		s += " " + e.Key
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

func newError(code ErrorCode, key, format string, args ...any) *Error {
	return &Error{Code: code, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of a store error, or 0 for any other error.
func CodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// IsNotFound reports whether err is ErrCodeNotFound.
func IsNotFound(err error) bool { return CodeOf(err) == ErrCodeNotFound }

// IsAlreadyExists reports whether err is ErrCodeAlreadyExists.
func IsAlreadyExists(err error) bool { return CodeOf(err) == ErrCodeAlreadyExists }

// IsConflict reports whether err is ErrCodeConflict.
func IsConflict(err error) bool { return CodeOf(err) == ErrCodeConflict }

// IsInvalid reports whether err is ErrCodeInvalid.
func IsInvalid(err error) bool { return CodeOf(err) == ErrCodeInvalid }

// IsExpired reports whether err is ErrCodeExpired.
func IsExpired(err error) bool { return CodeOf(err) == ErrCodeExpired }

// IsTooLargeResourceVersion reports whether err is
// ErrCodeTooLargeResourceVersion.
func IsTooLargeResourceVersion(err error) bool {
	return CodeOf(err) == ErrCodeTooLargeResourceVersion
}

// IsBadRequest reports whether err is ErrCodeBadRequest.
func IsBadRequest(err error) bool { return CodeOf(err) == ErrCodeBadRequest }

// IsUnavailable reports whether err is ErrCodeUnavailable.
func IsUnavailable(err error) bool { return CodeOf(err) == ErrCodeUnavailable }

// IsUnknownOutcome reports whether err is ErrCodeUnknownOutcome: the write
// may or may not have been applied.
func IsUnknownOutcome(err error) bool { return CodeOf(err) == ErrCodeUnknownOutcome }

// Sentinel errors of the store's own lifecycle.
var (
	// ErrClosed is returned by calls on a closed store.
	ErrClosed = errors.New("raftstore: store closed")
)
