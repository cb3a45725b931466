package registrytest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/raftapi/raftapi/raftstore"
)

// rejection is a rejected write as raftstore returns it, with one of the
// codes a rejected command gets (NotFound, AlreadyExists, Conflict,
// Invalid). rev is the key's current revision for a Conflict.
func rejection(code raftstore.ErrorCode, key string, rev uint64, format string, args ...any) *raftstore.Error {
	return &raftstore.Error{Code: code, Key: key, Rev: rev, Msg: fmt.Sprintf(format, args...)}
}

// expired is raftstore's error for a read or watch at a compacted revision.
func expired(rev uint64) *raftstore.Error {
	return &raftstore.Error{Code: raftstore.ErrCodeExpired, Rev: rev,
		Msg: "the requested resourceVersion has been compacted"}
}

// tooLarge is raftstore's error for a read of a revision that did not
// arrive in time.
func tooLarge(rev uint64) *raftstore.Error {
	return &raftstore.Error{Code: raftstore.ErrCodeTooLargeResourceVersion, Rev: rev,
		RetryAfter: time.Second, Msg: "Too large resource version"}
}

// badRequest is raftstore's error for a malformed request.
func badRequest(format string, args ...any) *raftstore.Error {
	return &raftstore.Error{Code: raftstore.ErrCodeBadRequest, Msg: fmt.Sprintf(format, args...)}
}

// objectUID returns metadata.uid of a stored object ("" when absent).
func objectUID(obj []byte) string {
	var o struct {
		Metadata struct {
			UID string `json:"uid"`
		} `json:"metadata"`
	}
	if json.Unmarshal(obj, &o) != nil {
		return ""
	}
	return o.Metadata.UID
}
