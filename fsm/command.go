package fsm

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// CommandType is the first byte of every log entry the FSM applies. Values
// are persisted in the raft log: never renumber them. A node that meets a
// type it does not know skips the entry (see ApplyBatch), so new types can
// be introduced in a rolling upgrade once every node understands them.
type CommandType uint8

// Command types.
const (
	CmdCreate  CommandType = 1
	CmdUpdate  CommandType = 2
	CmdDelete  CommandType = 3
	CmdCompact CommandType = 4
	CmdAdmit   CommandType = 5
)

func (t CommandType) String() string {
	switch t {
	case CmdCreate:
		return "create"
	case CmdUpdate:
		return "update"
	case CmdDelete:
		return "delete"
	case CmdCompact:
		return "compact"
	case CmdAdmit:
		return "admit"
	}
	return fmt.Sprintf("command(%d)", uint8(t))
}

// Preconditions restrict an update or delete. Zero values mean "no
// precondition".
type Preconditions struct {
	// ResourceVersion, when non-zero, must equal the key's current revision.
	ResourceVersion uint64
	// UID, when non-empty, must equal the stored object's metadata.uid.
	UID string
}

// Command is one replicated change. Which fields matter depends on Type:
//
//   - CmdCreate: Key, Object. The key must not exist.
//   - CmdUpdate: Key, Object, Preconditions. The key must exist.
//   - CmdDelete: Key, Preconditions. The key must exist.
//   - CmdCompact: Revision, the new compaction boundary: history records
//     below it are dropped.
//   - CmdAdmit: Key, the name of a member that started without raft state
//     and asks to vote again. It changes no state: what counts is that the
//     member proposed it after it started and has applied it (see
//     raftstore's rejoin.go).
//
// Object is the full JSON object to store; the FSM only sets
// metadata.resourceVersion in it.
type Command struct {
	Type          CommandType
	Key           string
	Object        []byte
	Preconditions Preconditions
	Revision      uint64
}

// Encode returns the log entry payload: the type byte, then the fields as
// uvarint-length-prefixed bytes and uvarints.
func (c *Command) Encode() []byte {
	b := make([]byte, 0, 1+len(c.Key)+len(c.Object)+len(c.Preconditions.UID)+32)
	b = append(b, byte(c.Type))
	switch c.Type {
	case CmdCreate:
		b = appendBytes(b, []byte(c.Key))
		b = appendBytes(b, c.Object)
	case CmdUpdate:
		b = appendBytes(b, []byte(c.Key))
		b = appendBytes(b, c.Object)
		b = appendPreconditions(b, c.Preconditions)
	case CmdDelete:
		b = appendBytes(b, []byte(c.Key))
		b = appendPreconditions(b, c.Preconditions)
	case CmdAdmit:
		b = appendBytes(b, []byte(c.Key))
	case CmdCompact:
		b = binary.AppendUvarint(b, c.Revision)
	}
	return b
}

// DecodeCommand parses a log entry payload. It returns ErrUnknownCommand
// (wrapped) for a type byte it does not know, and another error for a
// payload that is truncated or malformed.
func DecodeCommand(data []byte) (*Command, error) {
	if len(data) == 0 {
		return nil, errors.New("fsm: empty command")
	}
	c := &Command{Type: CommandType(data[0])}
	d := decoder{buf: data[1:]}
	switch c.Type {
	case CmdCreate:
		c.Key = string(d.bytes())
		c.Object = d.bytes()
	case CmdUpdate:
		c.Key = string(d.bytes())
		c.Object = d.bytes()
		c.Preconditions = d.preconditions()
	case CmdDelete:
		c.Key = string(d.bytes())
		c.Preconditions = d.preconditions()
	case CmdAdmit:
		c.Key = string(d.bytes())
	case CmdCompact:
		c.Revision = d.uvarint()
	default:
		return nil, fmt.Errorf("%w: %d", ErrUnknownCommand, data[0])
	}
	if d.err != nil {
		return nil, fmt.Errorf("fsm: decode %s command: %w", c.Type, d.err)
	}
	return c, nil
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendPreconditions(b []byte, p Preconditions) []byte {
	b = binary.AppendUvarint(b, p.ResourceVersion)
	return appendBytes(b, []byte(p.UID))
}

// decoder reads uvarint-framed fields, remembering the first error.
type decoder struct {
	buf []byte
	err error
}

var errTruncated = errors.New("truncated")

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.err = errTruncated
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.buf)) {
		d.err = errTruncated
		return nil
	}
	v := d.buf[:n:n]
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) preconditions() Preconditions {
	rv := d.uvarint()
	uid := d.bytes()
	return Preconditions{ResourceVersion: rv, UID: string(uid)}
}
