package handlers

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
)

// stream writes watch events: JSON lines of {"type","object"}, or
// length-prefixed Protobuf WatchEvents. Events are gathered in pending
// and handed to the ResponseWriter in one write per flush (or once
// pending holds pendingWriteSize bytes): HTTP/2 passes a handler's
// output to the connection in 4 KiB chunks, each a round trip to the
// connection's goroutine, unless one write hands it more, and the write
// deadline is set once per write instead of once per event. Each write
// and its flush must finish within writeTimeout (see deadline).
type stream struct {
	enc     encoder
	out     negotiation.Output
	w       http.ResponseWriter
	flusher http.Flusher
	deadline
	// columnsSent is set once a Table event carried the column
	// definitions; later ones leave them out.
	columnsSent bool
	// pending holds the events written since the last write to w.
	pending []byte
}

// pendingWriteSize is how many bytes of events the stream gathers
// before it writes them to the ResponseWriter without waiting for the
// flush; pendingKeepSize the largest buffer kept for the next events.
const (
	pendingWriteSize = 64 << 10
	pendingKeepSize  = 256 << 10
)

func (s *Scope) newStream(w http.ResponseWriter, out negotiation.Output) *stream {
	ct := codec.MediaJSON
	if out.Enc == negotiation.Protobuf {
		ct = codec.MediaProtobuf + ";stream=watch"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Transfer-Encoding", "chunked")
	f, _ := w.(http.Flusher)
	st := &stream{enc: s.encoder(), out: out, w: w, flusher: f, deadline: newDeadline(w, s.watchWriteTimeout())}
	st.arm()
	defer st.disarm()
	w.WriteHeader(http.StatusOK)
	if f != nil {
		f.Flush()
	}
	return st
}

// watchWriteTimeout is the scope's WatchWriteTimeout or its default.
func (s *Scope) watchWriteTimeout() time.Duration {
	if s.WatchWriteTimeout > 0 {
		return s.WatchWriteTimeout
	}
	return DefaultWatchWriteTimeout
}

// send writes one event holding a stored object (or bookmark object).
func (s *stream) send(typ string, data []byte) bool {
	obj, err := s.object(typ, data)
	if err != nil {
		return false
	}
	return s.write(typ, obj)
}

// object returns the event's object in the stream's representation.
func (s *stream) object(typ string, data []byte) ([]byte, error) {
	switch {
	case s.out.View == negotiation.ViewTable:
		var items [][]byte
		if typ != "BOOKMARK" {
			items = [][]byte{data}
		}
		var lm metav1.ListMeta
		if typ == "BOOKMARK" {
			m, _ := partialMetadata(data, "v1")
			lm.ResourceVersion = m.ResourceVersion
		}
		t, err := s.enc.table(items, lm, s.out, !s.columnsSent)
		if err != nil {
			return nil, err
		}
		s.columnsSent = true
		return json.Marshal(t)
	case s.out.View == negotiation.ViewMetadata:
		pom, err := partialMetadata(data, s.out.MetaVersion)
		if err != nil {
			return nil, err
		}
		return json.Marshal(pom)
	case s.out.Enc == negotiation.Protobuf:
		obj, err := codec.DecodeStored(s.enc.res, data)
		if err != nil {
			return nil, err
		}
		return s.enc.codecs.Protobuf(obj)
	case typ == "BOOKMARK":
		// Bookmarks are built in the served version already.
		return data, nil
	}
	return codec.ServedData(s.enc.res, data)
}

// sendStatus writes an ERROR event.
func (s *stream) sendStatus(st *metav1.Status) bool {
	var raw []byte
	if s.out.Enc == negotiation.Protobuf && s.out.View == negotiation.ViewObject {
		var err error
		if raw, err = s.enc.codecs.Protobuf(st); err != nil {
			return false
		}
	} else {
		raw, _ = json.Marshal(st)
	}
	return s.write("ERROR", raw) && s.flush()
}

// write adds one event to pending without sending it: the caller
// flushes once it has no more events at hand (see flush), so a busy
// stream sends many events per write to the connection instead of one
// each.
func (s *stream) write(typ string, obj []byte) bool {
	if s.out.Enc == negotiation.Protobuf && s.out.View == negotiation.ViewObject {
		if err := s.appendProtobuf(typ, obj); err != nil {
			return false
		}
	} else {
		s.appendJSON(typ, obj)
	}
	return len(s.pending) < pendingWriteSize || s.writePending()
}

// appendJSON adds one {"type","object"} line. obj is JSON the server
// encoded (stored objects are validated when written), so it is copied
// as it is rather than re-scanned by an encoder.
func (s *stream) appendJSON(typ string, obj []byte) {
	s.pending = append(s.pending, `{"type":"`...)
	s.pending = append(s.pending, typ...)
	s.pending = append(s.pending, `","object":`...)
	s.pending = append(s.pending, obj...)
	s.pending = append(s.pending, "}\n"...)
}

// writePending hands pending to the ResponseWriter, within writeTimeout.
func (s *stream) writePending() bool {
	if len(s.pending) == 0 {
		return true
	}
	s.arm()
	defer s.disarm()
	return s.writeOut()
}

// flush sends what was written to the client, within writeTimeout: one
// deadline covers the pending events' write and the flush.
func (s *stream) flush() bool {
	s.arm()
	defer s.disarm()
	if !s.writeOut() {
		return false
	}
	err := s.rc.Flush()
	return err == nil || errors.Is(err, http.ErrNotSupported)
}

// writeOut writes pending to the ResponseWriter under the deadline the
// caller armed, and empties it.
func (s *stream) writeOut() bool {
	if len(s.pending) == 0 {
		return true
	}
	_, err := s.w.Write(s.pending)
	if cap(s.pending) > pendingKeepSize {
		s.pending = nil
	} else {
		s.pending = s.pending[:0]
	}
	return err == nil
}

// appendProtobuf adds one length-prefixed WatchEvent frame.
func (s *stream) appendProtobuf(typ string, obj []byte) error {
	var buf bytes.Buffer
	ev := &metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: obj}}
	if err := s.enc.codecs.ProtoRaw.Encode(ev, &buf); err != nil {
		return err
	}
	s.pending = binary.BigEndian.AppendUint32(s.pending, uint32(buf.Len()))
	s.pending = append(s.pending, buf.Bytes()...)
	return nil
}
