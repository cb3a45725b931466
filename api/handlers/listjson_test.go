package handlers

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testList returns a ConfigMapList of n items of about size bytes each.
func testList(t *testing.T, n, size int) listJSON {
	t.Helper()
	items := make([][]byte, n)
	for i := range items {
		items[i] = fmt.Appendf(nil, `{"metadata":{"name":"cm-%d"},"data":{"v":%q}}`, i, strings.Repeat(string(rune('a'+i%26)), size))
	}
	rc := int64(7)
	l, err := newListJSON("ConfigMapList", "v1", metav1.ListMeta{ResourceVersion: "42", Continue: "c", RemainingItemCount: &rc}, items)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A list is written as one body below the gzip threshold and streamed
// above it, with or without gzip; every way gives the same JSON, which
// decodes to the list's metadata and items in order.
func TestListJSONWrittenWhole(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, size  int
		gzip     bool
		encoding string
	}{
		{"small", 3, 10, true, ""},
		{"empty", 0, 0, true, ""},
		{"large plain", 300, 1000, false, ""},
		{"large gzip", 300, 1000, true, "gzip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := testList(t, tc.n, tc.size)
			w := httptest.NewRecorder()
			writeListJSON(w, tc.gzip, l)
			if got := w.Header().Get("Content-Encoding"); got != tc.encoding {
				t.Fatalf("Content-Encoding %q, want %q", got, tc.encoding)
			}
			body := w.Body.Bytes()
			if tc.encoding == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(body, l.bytes()) || len(body) != l.size() {
				t.Fatalf("body of %d bytes differs from the list's %d", len(body), l.size())
			}
			checkListJSON(t, body, tc.n)
		})
	}
}

// checkListJSON fails unless body is a ConfigMapList of n items in order
// with the metadata testList gives.
func checkListJSON(t *testing.T, body []byte, n int) {
	t.Helper()
	var got struct {
		Kind       string          `json:"kind"`
		APIVersion string          `json:"apiVersion"`
		Metadata   metav1.ListMeta `json:"metadata"`
		Items      []struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("list does not decode: %v", err)
	}
	if got.Kind != "ConfigMapList" || got.APIVersion != "v1" || got.Metadata.ResourceVersion != "42" ||
		got.Metadata.Continue != "c" || got.Metadata.RemainingItemCount == nil || *got.Metadata.RemainingItemCount != 7 {
		t.Fatalf("list head %s %s %+v", got.Kind, got.APIVersion, got.Metadata)
	}
	if len(got.Items) != n {
		t.Fatalf("%d items, want %d", len(got.Items), n)
	}
	for i, it := range got.Items {
		if it.Metadata.Name != fmt.Sprintf("cm-%d", i) {
			t.Fatalf("item %d is %q", i, it.Metadata.Name)
		}
	}
}

// failingWriter fails every write after its first n.
type failingWriter struct{ n, writes int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > w.n {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

// A streamed list stops at the first failed write (a client gone)
// instead of going through the rest of the items, and says so.
func TestListJSONStopsWhenTheClientIsGone(t *testing.T) {
	l := testList(t, 2000, 100)
	w := &failingWriter{n: 50}
	if err := l.writeTo(w); err != io.ErrClosedPipe {
		t.Fatalf("writeTo = %v, want the writer's error", err)
	}
	if w.writes != w.n+1 {
		t.Fatalf("%d writes, want %d: the first failed write ends the list", w.writes, w.n+1)
	}
}

// writeSizes is a ResponseWriter that records the size of every write
// of the body.
type writeSizes struct {
	*httptest.ResponseRecorder
	sizes []int
}

func (w *writeSizes) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	return w.ResponseRecorder.Write(p)
}

// A streamed list reaches the response writer in pieces of streamBuffer,
// gzip-encoded or not, never in the compressor's or the items' own
// small writes: the HTTP/2 server makes each write of a handler at
// least one frame and one TLS record.
func TestStreamedListIsWrittenInLargePieces(t *testing.T) {
	items := make([][]byte, 300)
	for i := range items {
		v := make([]byte, 512)
		_, _ = rand.Read(v) // incompressible, so that the gzip stream spans several buffers
		items[i] = fmt.Appendf(nil, `{"metadata":{"name":"cm-%d"},"data":{"v":"%x"}}`, i, v)
	}
	l, err := newListJSON("ConfigMapList", "v1", metav1.ListMeta{}, items)
	if err != nil {
		t.Fatal(err)
	}
	for _, gzipped := range []bool{false, true} {
		w := &writeSizes{ResponseRecorder: httptest.NewRecorder()}
		writeListJSON(w, gzipped, l)
		if len(w.sizes) < 3 {
			t.Fatalf("gzip %t: %d writes of %v bytes, want a list large enough for several", gzipped, len(w.sizes), w.sizes)
		}
		for i, n := range w.sizes[:len(w.sizes)-1] {
			if n != streamBuffer {
				t.Fatalf("gzip %t: write %d of %d is %d bytes, want %d", gzipped, i, len(w.sizes), n, streamBuffer)
			}
		}
	}
}
