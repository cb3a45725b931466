package fsm

import (
	"encoding/binary"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

var (
	bucketCurrent = []byte("current")
	bucketRev     = []byte("rev")
	bucketMeta    = []byte("meta")
	// bucketOldKeyIdx is the key index of earlier releases (key + keySep
	// + revision -> nothing); Open drops it (keyindex.go).
	bucketOldKeyIdx = []byte("keyidx")

	metaApplied   = []byte("applied")
	metaCompacted = []byte("compacted")
)

// keySep is a byte no storage key contains: the least key after a key k
// is k + keySep, which list continuation (startKey) and the key index's
// walk (indexCursor) rely on.
const keySep = 0x00

// maxKeyLen is the longest storage key: bbolt's key size limit, less the
// 9 bytes the key index of earlier releases appended to each key, so that
// the keys accepted stay the ones they accepted.
const maxKeyLen = bolt.MaxKeySize - 1 - 8

// validKey reports whether key may be stored.
func validKey(key string) bool {
	return key != "" && len(key) <= maxKeyLen && !strings.ContainsRune(key, keySep)
}

func revBytes(rev uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], rev)
	return b[:]
}

// currentValue is the stored form of a current object: revision + object.
func currentValue(rev uint64, obj []byte) []byte {
	b := make([]byte, 8, 8+len(obj))
	binary.BigEndian.PutUint64(b, rev)
	return append(b, obj...)
}

func splitCurrent(v []byte) (uint64, []byte) {
	return binary.BigEndian.Uint64(v[:8]), v[8:]
}

// EventType is what a committed change did to its key.
type EventType uint8

// Event types of committed changes. Persisted in history records.
const (
	Created EventType = 1
	Updated EventType = 2
	Deleted EventType = 3
)

func (t EventType) String() string {
	switch t {
	case Created:
		return "Created"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// Event is one committed change of one object. Object is the object as
// stored by the change (for Deleted: the last state, stamped with the
// deletion's revision); Prev is the object before it and PrevRev its
// revision (nil and 0 for Created). Events are shared between receivers:
// their slices must not be modified.
type Event struct {
	Type    EventType
	Key     string
	Rev     uint64
	Object  []byte
	Prev    []byte
	PrevRev uint64
}

// encodeRecord is the history record of e: its type, key, the version
// it replaced and that version's revision. It leaves out e.Object: that
// version is either the key's current one or the one the key's next
// change replaced, both already stored (View.eventObject finds it), so
// every version of an object is stored once. Records written by earlier
// releases carry the object; decodeRecord reads both.
func encodeRecord(e *Event) []byte {
	b := make([]byte, 0, 1+len(e.Key)+len(e.Prev)+15)
	b = append(b, byte(e.Type))
	b = appendBytes(b, []byte(e.Key))
	b = appendBytes(b, nil)
	b = appendBytes(b, e.Prev)
	return binary.AppendUvarint(b, e.PrevRev)
}

// decodeRecord parses a history record; the returned slices are copies, so
// the event outlives the transaction it was read in. Object is nil unless
// the record was written by an earlier release, which stored it.
func decodeRecord(rev uint64, v []byte) Event {
	if len(v) == 0 {
		panic(fmt.Sprintf("fsm: empty history record at revision %d", rev))
	}
	d := decoder{buf: v[1:]}
	e := Event{Type: EventType(v[0]), Rev: rev}
	e.Key = string(d.bytes())
	e.Object = clone(d.bytes())
	e.Prev = clone(d.bytes())
	e.PrevRev = d.uvarint()
	if len(e.Object) == 0 {
		e.Object = nil
	}
	if len(e.Prev) == 0 {
		e.Prev = nil
	}
	if d.err != nil {
		panic(fmt.Sprintf("fsm: corrupt history record at revision %d: %v", rev, d.err))
	}
	return e
}

// recordPrev returns only the version a history record replaced (nil for
// a create) and that version's revision. prev aliases v.
func recordPrev(rev uint64, v []byte) (prev []byte, prevRev uint64) {
	d := decoder{buf: v[1:]}
	d.bytes() // key
	d.bytes() // object
	prev = d.bytes()
	prevRev = d.uvarint()
	if d.err != nil {
		panic(fmt.Sprintf("fsm: corrupt history record at revision %d: %v", rev, d.err))
	}
	if len(prev) == 0 {
		prev = nil
	}
	return prev, prevRev
}

// recordKey returns only the key of a history record.
func recordKey(rev uint64, v []byte) string {
	d := decoder{buf: v[1:]}
	k := d.bytes()
	if d.err != nil {
		panic(fmt.Sprintf("fsm: corrupt history record at revision %d: %v", rev, d.err))
	}
	return string(k)
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

func getUint(b *bolt.Bucket, k []byte) uint64 {
	v := b.Get(k)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func putUint(b *bolt.Bucket, k []byte, v uint64) error {
	return b.Put(k, revBytes(v))
}

func bytesToRev(b []byte) uint64 { return binary.BigEndian.Uint64(b) }
