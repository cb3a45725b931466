package registry

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// An update, a patch, an apply or a delete reads the object, decides what
// to write and writes it with the revision it read as precondition. As
// kube-apiserver starts such a write from its watch cache, they start
// from this node's own state (Any; an update naming a resourceVersion, a
// state not older than it), which costs nothing, rather than a
// quorum read, which costs a round trip to the leader and a wait for this
// node to apply what the leader has committed. That state may lag. The
// answer is still linearizable because only one outcome of such an
// attempt is final: a write that committed with the revision read as
// precondition, which proves the object read was the current one when the
// write took effect. A dry run, which writes nothing, is answered from the
// state read, as kube-apiserver answers one from its watch cache. Every
// other outcome was decided from what was read (a 404, a failed
// precondition, a patch that does not apply, a validation error, nothing
// to write) and is decided again from a Most Recent read. Errors of the
// write itself other than a conflict (unavailable, unknown outcome) are
// returned as they are: the write may have happened, so repeating it
// could report the attempt's own effect as someone else's.

// freshRead is the first read of a read-modify-write.
var freshRead = ReadOptions{Consistency: Any}

// decideAgain reports whether an attempt that read with read must be
// repeated from a Most Recent read: it read the node's own state and its
// outcome (err, or for a success whether it is decided: a committed write
// or a dry run) does not stand on that state.
func decideAgain(read ReadOptions, err error, decided bool) bool {
	if read.Consistency == MostRecent {
		return false
	}
	if err == nil {
		return !decided
	}
	var status apierrors.APIStatus
	return IsNotFound(err) || IsConflict(err) || errors.As(err, &status)
}

// mostRecent is the read every later attempt makes.
var mostRecent = ReadOptions{Consistency: MostRecent}
