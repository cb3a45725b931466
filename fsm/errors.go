package fsm

import (
	"errors"
	"fmt"
)

// Code classifies why a command was rejected. Codes are part of the
// replicated result and of the peer protocol: never renumber them.
type Code uint8

// Rejection codes of a command.
const (
	// CodeNotFound: update or delete of a key that does not exist.
	CodeNotFound Code = 1
	// CodeAlreadyExists: create of a key that exists.
	CodeAlreadyExists Code = 2
	// CodeConflict: a resourceVersion or UID precondition did not hold.
	CodeConflict Code = 3
	// CodeInvalid: the command itself is malformed (bad key, object that is
	// not a JSON object with metadata).
	CodeInvalid Code = 4
)

func (c Code) String() string {
	switch c {
	case CodeNotFound:
		return "NotFound"
	case CodeAlreadyExists:
		return "AlreadyExists"
	case CodeConflict:
		return "Conflict"
	case CodeInvalid:
		return "Invalid"
	}
	return fmt.Sprintf("Code(%d)", uint8(c))
}

// Error is a command rejected by its preconditions. It is a value returned
// to the proposer, never a reason to panic.
type Error struct {
	Code Code
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("fsm: %s: %s: %s", e.Code, e.Key, e.Msg)
}

func rejectf(code Code, key, format string, args ...any) *Error {
	return &Error{Code: code, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the Code of err if it is (or wraps) an *Error, else 0.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// Errors of the state machine's own operation.
var (
	// ErrCompacted is returned by reads at a revision older than the
	// compaction boundary.
	ErrCompacted = errors.New("fsm: revision has been compacted")
	// ErrFutureRevision is returned by reads at a revision above the
	// applied index.
	ErrFutureRevision = errors.New("fsm: revision is not applied yet")
	// ErrUnknownCommand is returned by DecodeCommand for a type byte this
	// version does not know; ApplyBatch skips such entries.
	ErrUnknownCommand = errors.New("fsm: unknown command type")
)
