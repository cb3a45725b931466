package handlers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// streamBuffer is the buffer a streamed body is written through,
// compressed or not: a few HTTP/2 frames per write. Without it the
// compressor's output, a few hundred bytes per write, reaches the
// HTTP/2 response writer, which hands each 4 KiB of it to the
// connection's goroutine as a frame of its own, each a TLS record.
const streamBuffer = 64 << 10

// streamWriters holds streamBuffer-sized writers, reset to nil: a
// buffer of that size is too much to allocate and clear per response.
var streamWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, streamBuffer) }}

// writeBuffered writes to w, through a pooled streamBuffer-sized
// buffer, what write writes to its writer; the buffer is flushed only if
// write succeeded (after an error the client is gone).
func writeBuffered(w io.Writer, write func(io.Writer) error) {
	bw := streamWriters.Get().(*bufio.Writer)
	bw.Reset(w)
	if write(bw) == nil {
		_ = bw.Flush()
	}
	bw.Reset(nil)
	streamWriters.Put(bw)
}

// listJSON is the JSON of a XxxList whose items are the server's own
// encodings of the objects (stored or converted). It is written as its
// pieces, never re-scanned: an encoder checks every json.RawMessage it
// copies, which for a list of 100,000 objects is most of the cost.
type listJSON struct {
	// head is the list's kind, apiVersion and metadata, without the
	// closing brace.
	head  []byte
	items [][]byte
}

// newListJSON returns the list of kind and apiVersion holding items.
func newListJSON(kind, apiVersion string, lm metav1.ListMeta, items [][]byte) (listJSON, error) {
	head, err := json.Marshal(struct {
		Kind       string          `json:"kind"`
		APIVersion string          `json:"apiVersion"`
		Metadata   metav1.ListMeta `json:"metadata"`
	}{kind, apiVersion, lm})
	if err != nil {
		return listJSON{}, err
	}
	return listJSON{head: head[:len(head)-1], items: items}, nil
}

const (
	itemsOpen  = `,"items":[`
	itemsClose = `]}`
)

// size returns the length of the list's JSON.
func (l listJSON) size() int {
	n := len(l.head) + len(itemsOpen) + len(itemsClose)
	for i, it := range l.items {
		if i > 0 {
			n++ // the comma before it
		}
		n += len(it)
	}
	return n
}

// bytes returns the list's JSON in one buffer of the exact size.
func (l listJSON) bytes() []byte {
	b := bytes.NewBuffer(make([]byte, 0, l.size()))
	_ = l.writeTo(b) // a bytes.Buffer does not fail
	return b.Bytes()
}

// writeTo writes the list's JSON to w piece by piece, stopping at the
// first error.
func (l listJSON) writeTo(w io.Writer) error {
	if _, err := w.Write(l.head); err != nil {
		return err
	}
	if _, err := io.WriteString(w, itemsOpen); err != nil {
		return err
	}
	comma := []byte{','}
	for i, it := range l.items {
		if i > 0 {
			if _, err := w.Write(comma); err != nil {
				return err
			}
		}
		if _, err := w.Write(it); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, itemsClose)
	return err
}

// writeListJSON writes a JSON list response. A list smaller than
// gzipThreshold is written in one piece. A larger one is
// streamed, gzip-encoded when the client accepts it, as kube-apiserver
// streams its JSON lists: the response starts at once and no copy of the
// whole body is made (100,000 ConfigMaps of 1 KiB are 143 MB, which cost
// more to allocate and fill than to send). A write error means the client
// is gone; nothing more can be told it.
func writeListJSON(w http.ResponseWriter, acceptGzip bool, l listJSON) {
	if l.size() < gzipThreshold {
		writeMaybeCompressed(w, acceptGzip, http.StatusOK, l.bytes())
		return
	}
	startResponse(w, acceptGzip, http.StatusOK)
	if acceptGzip {
		writeGzip(w, l.writeTo)
		return
	}
	writeBuffered(w, l.writeTo)
}
