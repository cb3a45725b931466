package kubeapi

import (
	"bufio"
	"errors"
	"strings"
	"testing"
)

func watchOf(stream string) *Watch {
	return &Watch{rd: bufio.NewReader(strings.NewReader(stream))}
}

func TestWatchNext(t *testing.T) {
	w := watchOf(`{"type":"ADDED","object":{"apiVersion":"v1","data":{"v":"x"},"kind":"ConfigMap","metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:data":{"f:v":{}}}}],"name":"w-1","namespace":"ns","resourceVersion":"7"}}}
{"type":"DELETED","object":{"kind":"ConfigMap","metadata":{"name":"w-2"}}}
`)
	for _, want := range []Event{{"ADDED", "w-1"}, {"DELETED", "w-2"}} {
		got, err := w.Next()
		if err != nil || got != want {
			t.Fatalf("Next() = %+v, %v; want %+v", got, err, want)
		}
	}
	if _, err := w.Next(); !errors.Is(err, ErrWatchEnded) {
		t.Errorf("at the end: %v, want ErrWatchEnded", err)
	}
}

func TestWatchNextErrors(t *testing.T) {
	tests := []struct{ name, stream string }{
		{"error event", `{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}` + "\n"},
		{"not an event", `{"kind":"Status"}` + "\n"},
		{"cut mid-line", `{"type":"ADDED","object":{"metadata":{"na`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ev, err := watchOf(tt.stream).Next(); err == nil || errors.Is(err, ErrWatchEnded) {
				t.Errorf("Next() = %+v, %v; want an error", ev, err)
			}
		})
	}
}

func TestListMetaAndCount(t *testing.T) {
	body := []byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"53","continue":"abc"},"items":[` +
		`{"metadata":{"name":"a","uid":"1"}},{"metadata":{"name":"b","uid":"2"}}]}`)
	m, err := listMeta(body)
	if err != nil || m.ResourceVersion != "53" || m.Continue != "abc" {
		t.Fatalf("listMeta = %+v, %v", m, err)
	}
	p := Page{Body: body}
	if p.Count() != 2 {
		t.Errorf("Count() = %d, want 2", p.Count())
	}
	if n, size, err := p.Items(); err != nil || n != 2 || size != int64(len(`{"metadata":{"name":"a","uid":"1"}}`)*2) {
		t.Errorf("Items() = %d, %d, %v", n, size, err)
	}
}

func TestListMetaItemsFirst(t *testing.T) {
	body := []byte(`{"items":[{"metadata":{"name":"a","uid":"1","resourceVersion":"5"}}],"metadata":{"resourceVersion":"9"}}`)
	if m, err := listMeta(body); err != nil || m.ResourceVersion != "9" {
		t.Errorf("listMeta = %+v, %v; want resourceVersion 9", m, err)
	}
}
