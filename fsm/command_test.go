package fsm_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/fsm"
)

// roundTripCases hold only the fields each command type carries.
var roundTripCases = []struct {
	name string
	cmd  fsm.Command
}{
	{"create", fsm.Command{Type: fsm.CmdCreate, Key: "/registry/pods/ns/a", Object: []byte(`{"metadata":{"name":"a"}}`)}},
	{"create empty object", fsm.Command{Type: fsm.CmdCreate, Key: "k"}},
	{"create binary key", fsm.Command{Type: fsm.CmdCreate, Key: "k\x01\xff\u00e9", Object: []byte{0, 1, 2, 255}}},
	{"update no preconditions", fsm.Command{Type: fsm.CmdUpdate, Key: "k", Object: []byte(`{}`)}},
	{"update rv", fsm.Command{Type: fsm.CmdUpdate, Key: "k", Object: []byte(`{}`), Preconditions: fsm.Preconditions{ResourceVersion: 42}}},
	{"update rv and uid", fsm.Command{Type: fsm.CmdUpdate, Key: "k", Object: []byte(`{"a":1}`), Preconditions: fsm.Preconditions{ResourceVersion: 1<<64 - 1, UID: "6c4b-uid"}}},
	{"update large object", fsm.Command{Type: fsm.CmdUpdate, Key: "k", Object: bytes.Repeat([]byte("x"), 70000)}},
	{"delete", fsm.Command{Type: fsm.CmdDelete, Key: "k"}},
	{"delete preconditions", fsm.Command{Type: fsm.CmdDelete, Key: "k", Preconditions: fsm.Preconditions{ResourceVersion: 7, UID: "u"}}},
	{"compact zero", fsm.Command{Type: fsm.CmdCompact}},
	{"compact", fsm.Command{Type: fsm.CmdCompact, Revision: 300}},
	{"compact max", fsm.Command{Type: fsm.CmdCompact, Revision: 1<<64 - 1}},
	{"admit", fsm.Command{Type: fsm.CmdAdmit, Key: "n2"}},
}

// sameCommand compares commands treating nil and empty Object alike.
func sameCommand(a, b *fsm.Command) bool {
	return a.Type == b.Type && a.Key == b.Key && bytes.Equal(a.Object, b.Object) &&
		a.Preconditions == b.Preconditions && a.Revision == b.Revision
}

func TestCommandRoundTrip(t *testing.T) {
	for _, tc := range roundTripCases {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.cmd.Encode()
			if data[0] != byte(tc.cmd.Type) {
				t.Fatalf("first byte %d, want type %d", data[0], tc.cmd.Type)
			}
			got, err := fsm.DecodeCommand(data)
			if err != nil {
				t.Fatalf("DecodeCommand: %v", err)
			}
			if !sameCommand(got, &tc.cmd) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", got, tc.cmd)
			}
		})
	}
}

func TestCommandEncodeDropsFieldsOfOtherTypes(t *testing.T) {
	tests := []struct {
		name string
		in   fsm.Command
		want fsm.Command
	}{
		{"create drops preconditions and revision",
			fsm.Command{Type: fsm.CmdCreate, Key: "k", Object: []byte("{}"), Preconditions: fsm.Preconditions{ResourceVersion: 3, UID: "u"}, Revision: 9},
			fsm.Command{Type: fsm.CmdCreate, Key: "k", Object: []byte("{}")}},
		{"delete drops object",
			fsm.Command{Type: fsm.CmdDelete, Key: "k", Object: []byte("{}"), Revision: 9},
			fsm.Command{Type: fsm.CmdDelete, Key: "k"}},
		{"compact drops key",
			fsm.Command{Type: fsm.CmdCompact, Key: "k", Object: []byte("{}"), Revision: 9},
			fsm.Command{Type: fsm.CmdCompact, Revision: 9}},
		{"admit keeps only the name",
			fsm.Command{Type: fsm.CmdAdmit, Key: "n2", Object: []byte("{}"), Preconditions: fsm.Preconditions{ResourceVersion: 3}, Revision: 9},
			fsm.Command{Type: fsm.CmdAdmit, Key: "n2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fsm.DecodeCommand(tc.in.Encode())
			if err != nil {
				t.Fatal(err)
			}
			if !sameCommand(got, &tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDecodeCommandTruncated(t *testing.T) {
	for _, tc := range roundTripCases {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.cmd.Encode()
			// Every strict prefix that keeps the type byte lacks a field.
			for n := 1; n < len(data); n++ {
				if n > 64 && n < len(data)-64 {
					continue // the middle of a long payload adds nothing
				}
				c, err := fsm.DecodeCommand(data[:n])
				if err == nil {
					t.Fatalf("DecodeCommand(%d of %d bytes) = %+v, want error", n, len(data), c)
				}
				if errors.Is(err, fsm.ErrUnknownCommand) {
					t.Fatalf("truncated payload reported as unknown command: %v", err)
				}
				if !strings.HasPrefix(err.Error(), "fsm: ") {
					t.Fatalf("error %q lacks the package prefix", err)
				}
			}
		})
	}
}

func TestDecodeCommandMalformed(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"type only create", []byte{byte(fsm.CmdCreate)}},
		{"type only compact", []byte{byte(fsm.CmdCompact)}},
		{"type only admit", []byte{byte(fsm.CmdAdmit)}},
		{"key length beyond payload", []byte{byte(fsm.CmdCreate), 10, 'a'}},
		{"huge key length", []byte{byte(fsm.CmdDelete), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
		{"uvarint overflow", []byte{byte(fsm.CmdCompact), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
		{"unterminated uvarint", []byte{byte(fsm.CmdCompact), 0x80}},
		{"update missing uid", []byte{byte(fsm.CmdUpdate), 1, 'k', 0, 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fsm.DecodeCommand(tc.data)
			if err == nil {
				t.Fatalf("DecodeCommand(%x) = %+v, want error", tc.data, c)
			}
			if errors.Is(err, fsm.ErrUnknownCommand) {
				t.Fatalf("malformed payload reported as unknown command: %v", err)
			}
		})
	}
}

func TestDecodeCommandUnknownType(t *testing.T) {
	for _, typ := range []byte{0, 6, 7, 99, 255} {
		t.Run(fsm.CommandType(typ).String(), func(t *testing.T) {
			for _, data := range [][]byte{{typ}, {typ, 1, 'k', 0}} {
				c, err := fsm.DecodeCommand(data)
				if !errors.Is(err, fsm.ErrUnknownCommand) {
					t.Fatalf("DecodeCommand(%x) = %+v, %v; want ErrUnknownCommand", data, c, err)
				}
				if c != nil {
					t.Fatalf("command %+v returned with error", c)
				}
			}
		})
	}
}

func TestStringers(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"create", fsm.CmdCreate.String(), "create"},
		{"update", fsm.CmdUpdate.String(), "update"},
		{"delete", fsm.CmdDelete.String(), "delete"},
		{"compact", fsm.CmdCompact.String(), "compact"},
		{"admit", fsm.CmdAdmit.String(), "admit"},
		{"unknown command", fsm.CommandType(77).String(), "command(77)"},
		{"created", fsm.Created.String(), "Created"},
		{"updated", fsm.Updated.String(), "Updated"},
		{"deleted", fsm.Deleted.String(), "Deleted"},
		{"unknown event", fsm.EventType(9).String(), "EventType(9)"},
		{"not found", fsm.CodeNotFound.String(), "NotFound"},
		{"already exists", fsm.CodeAlreadyExists.String(), "AlreadyExists"},
		{"conflict", fsm.CodeConflict.String(), "Conflict"},
		{"invalid", fsm.CodeInvalid.String(), "Invalid"},
		{"unknown code", fsm.Code(0).String(), "Code(0)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

// The persisted numbering of command types and codes must never change.
func TestWireNumbersArePinned(t *testing.T) {
	if fsm.CmdCreate != 1 || fsm.CmdUpdate != 2 || fsm.CmdDelete != 3 || fsm.CmdCompact != 4 || fsm.CmdAdmit != 5 {
		t.Fatal("command type numbers changed")
	}
	if fsm.CodeNotFound != 1 || fsm.CodeAlreadyExists != 2 || fsm.CodeConflict != 3 || fsm.CodeInvalid != 4 {
		t.Fatal("rejection code numbers changed")
	}
	if fsm.Created != 1 || fsm.Updated != 2 || fsm.Deleted != 3 {
		t.Fatal("event type numbers changed")
	}
}

func TestErrorAndCodeOf(t *testing.T) {
	e := &fsm.Error{Code: fsm.CodeConflict, Key: "k", Msg: "boom"}
	if got, want := e.Error(), "fsm: Conflict: k: boom"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	tests := []struct {
		name string
		err  error
		want fsm.Code
	}{
		{"nil", nil, 0},
		{"plain", errors.New("x"), 0},
		{"direct", e, fsm.CodeConflict},
		{"wrapped", errors.Join(errors.New("ctx"), e), fsm.CodeConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fsm.CodeOf(tc.err); got != tc.want {
				t.Fatalf("CodeOf = %v, want %v", got, tc.want)
			}
		})
	}
	if err := (&fsm.Result{}).Error(); err != nil {
		t.Fatalf("Result without rejection: Error() = %v", err)
	}
	if err := (&fsm.Result{Err: e}).Error(); fsm.CodeOf(err) != fsm.CodeConflict {
		t.Fatalf("Result.Error() = %v, want the rejection", err)
	}
}

// A node that meets a command type from a newer version rejects that entry
// with CodeInvalid, and applies the entries around it (rolling upgrade).
func TestApplyBatchSkipsUnknownCommandType(t *testing.T) {
	h := newHarness(t)
	logs := []*raft.Log{
		h.entry(create("a", `{}`)),
		h.rawEntry(raft.LogCommand, []byte{200, 1, 'x'}),
		h.rawEntry(raft.LogCommand, []byte{0}),
		h.entry(create("b", `{}`)),
	}
	out := h.f.ApplyBatch(logs)
	for i, want := range []fsm.Code{0, fsm.CodeInvalid, fsm.CodeInvalid, 0} {
		r := asResult(t, out[i])
		if got := fsm.CodeOf(r.Error()); got != want {
			t.Fatalf("entry %d: code %v (%v), want %v", logs[i].Index, got, r.Err, want)
		}
		if r.Rev != logs[i].Index {
			t.Fatalf("entry %d: result rev %d", logs[i].Index, r.Rev)
		}
		if want == fsm.CodeInvalid && (r.Object != nil || !strings.Contains(r.Err.Msg, "unknown command")) {
			t.Fatalf("entry %d: result %+v", logs[i].Index, r)
		}
	}
	if h.f.Applied() != 4 {
		t.Fatalf("Applied() = %d, want 4", h.f.Applied())
	}
	b := h.rec.take()
	if len(b) != 1 || b[0].applied != 4 || len(b[0].events) != 2 ||
		b[0].events[0].Key != "a" || b[0].events[1].Key != "b" {
		t.Fatalf("committed %+v, want one batch at 4 with events for a and b", b)
	}
	for _, k := range []string{"a", "b"} {
		if _, ok := get(t, h.f, k, 0); !ok {
			t.Fatalf("%s not stored", k)
		}
	}
}
