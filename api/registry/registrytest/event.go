package registrytest

// eventKind is what a committed change did to its key.
type eventKind uint8

const (
	created eventKind = iota + 1
	updated
	deleted
)

// event is one committed change, kept in the history and offered to the
// watchers: the key's new version (for a deletion, its last state stamped
// with the deletion's revision) and the version it replaced.
type event struct {
	Type    eventKind
	Key     string
	Rev     uint64
	Object  []byte
	Prev    []byte // nil for a creation
	PrevRev uint64 // 0 for a creation
}
