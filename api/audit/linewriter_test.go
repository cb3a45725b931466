package audit

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedOutput is a log output whose writes wait for the test: each
// Write reports on entered, then waits for a token on release.
type gatedOutput struct {
	entered chan struct{}
	release chan struct{}
	mu      sync.Mutex
	writes  []string
	closed  bool
}

func newGatedOutput() *gatedOutput {
	return &gatedOutput{entered: make(chan struct{}, 100), release: make(chan struct{}, 100)}
}

func (g *gatedOutput) Write(p []byte) (int, error) {
	g.entered <- struct{}{}
	<-g.release
	g.mu.Lock()
	defer g.mu.Unlock()
	g.writes = append(g.writes, string(p))
	return len(p), nil
}

func (g *gatedOutput) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	return nil
}

func (g *gatedOutput) written() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.writes...)
}

func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestBatchModeDropsWhenFull: batch mode never waits, queues up to the
// buffer size while the writer is busy, drops beyond, and Close writes
// what is queued.
func TestBatchModeDropsWhenFull(t *testing.T) {
	out := newGatedOutput()
	w := newLineWriter(out, ModeBatch, 2, discard())
	if !w.write([]byte("1\n")) {
		t.Fatal("first line refused")
	}
	waitSignal(t, out.entered, "the writer to take the first line")
	for _, l := range []string{"2\n", "3\n"} {
		if !w.write([]byte(l)) {
			t.Fatalf("line %q refused with room in the buffer", l)
		}
	}
	if w.write([]byte("4\n")) {
		t.Fatal("line accepted beyond the buffer")
	}
	closed := make(chan error)
	go func() { closed <- w.close() }()
	out.release <- struct{}{}
	waitSignal(t, out.entered, "the queued lines' write")
	out.release <- struct{}{}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(out.written(), ""); got != "1\n2\n3\n" || !out.closed {
		t.Errorf("written %q (closed %v), want lines 1-3", got, out.closed)
	}
	if w.write([]byte("5\n")) {
		t.Error("line accepted after close")
	}
}

// TestBlockingSharesWrites: in blocking mode each writer waits for its
// line, and lines arriving during a write go out together in the next.
func TestBlockingSharesWrites(t *testing.T) {
	out := newGatedOutput()
	w := newLineWriter(out, ModeBlocking, 0, discard())
	first := make(chan bool)
	go func() { first <- w.write([]byte("first\n")) }()
	waitSignal(t, out.entered, "the first write")
	const n = 20
	results := make(chan bool, n)
	for i := range n {
		go func() { results <- w.write(fmt.Appendf(nil, "line %d\n", i)) }()
	}
	deadline := time.Now().Add(testTimeout)
	for queued := 0; queued < n; {
		w.mu.Lock()
		queued = len(w.cur.ends)
		w.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d lines queued", queued, n)
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-results:
		t.Fatal("a blocking write returned before its line was written")
	default:
	}
	out.release <- struct{}{}
	if !<-first {
		t.Fatal("first write failed")
	}
	waitSignal(t, out.entered, "the group's write")
	out.release <- struct{}{}
	for range n {
		if !<-results {
			t.Fatal("a write failed")
		}
	}
	if got := out.written(); len(got) != 2 || strings.Count(got[1], "\n") != n {
		t.Errorf("%d writes, want the first line then one write of %d lines", len(got), n)
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
}

// TestWritesAreWholeLines: a group is written in runs of whole lines of
// at most maxWrite bytes, so that rotation never splits a line.
func TestWritesAreWholeLines(t *testing.T) {
	out := newGatedOutput()
	w := newLineWriter(out, ModeBatch, 100, discard())
	w.write([]byte("0\n"))
	waitSignal(t, out.entered, "the first write")
	line := func(c byte, n int) []byte { return append(bytes.Repeat([]byte{c}, n-1), '\n') }
	lines := [][]byte{line('a', 100<<10), line('b', 100<<10), line('c', 100<<10), line('d', maxWrite+10), line('e', 10)}
	for _, l := range lines { // queued as one group behind the first write
		w.write(l)
	}
	for range cap(out.release) {
		out.release <- struct{}{}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	writes := out.written()
	if len(writes) != 5 { // "0", a+b, c, d, e
		t.Errorf("%d writes, want 5", len(writes))
	}
	var all []byte
	for _, p := range writes[1:] {
		if lines := strings.Count(p, "\n"); !strings.HasSuffix(p, "\n") || (len(p) > maxWrite && lines > 1) {
			t.Errorf("a write of %d bytes and %d lines", len(p), lines)
		}
		all = append(all, []byte(p)...)
	}
	if !bytes.Equal(all, bytes.Join(lines, nil)) {
		t.Error("lines lost or reordered")
	}
}

type failingOutput struct{}

func (failingOutput) Write([]byte) (int, error) { return 0, errors.New("disk full") }
func (failingOutput) Close() error              { return nil }

// TestStrictMode: blocking-strict fails a request whose RequestReceived
// event cannot be written; blocking serves it anyway.
func TestStrictMode(t *testing.T) {
	for _, mode := range []string{ModeBlocking, ModeBlockingStrict} {
		t.Run(mode, func(t *testing.T) {
			a, _ := newTestAuditor(t, policyAt("Metadata"))
			a.backend.out.close()
			a.backend.out = newLineWriter(failingOutput{}, mode, 0, discard())
			a.backend.strict = mode == ModeBlockingStrict
			w := serve(a.Handler(withTestAuth(testAPI)), request{method: "GET", target: "/api/v1/namespaces/ns/configmaps/c"})
			want := 200
			if mode == ModeBlockingStrict {
				want = 500
			}
			if w.Code != want || (want == 500 && !strings.Contains(w.Body.String(), "failed to store audit event")) {
				t.Errorf("%d %s, want %d", w.Code, w.Body, want)
			}
		})
	}
}

// TestConcurrentWrites: every line a blocking write reports written is in
// the log once, whole, however the writes interleave with each other and
// with close.
func TestConcurrentWrites(t *testing.T) {
	for _, mode := range []string{ModeBlocking, ModeBatch} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.log")
			out, err := openOutput(Options{LogPath: path})
			if err != nil {
				t.Fatal(err)
			}
			w := newLineWriter(out, mode, 1<<20, discard())
			var wg sync.WaitGroup
			var mu sync.Mutex
			written := map[string]bool{}
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 200 {
						line := fmt.Sprintf("writer %d line %d", g, i)
						if w.write([]byte(line + "\n")) {
							mu.Lock()
							written[line] = true
							mu.Unlock()
						}
					}
				}()
			}
			// Close once some lines are in, while others are coming.
			deadline := time.Now().Add(testTimeout)
			for n := 0; n == 0; {
				mu.Lock()
				n = len(written)
				mu.Unlock()
				if time.Now().After(deadline) {
					t.Fatal("no line written")
				}
				runtime.Gosched()
			}
			if err := w.close(); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			seen := map[string]int{}
			for _, l := range strings.Split(strings.TrimSuffix(string(mustRead(t, path)), "\n"), "\n") {
				if l != "" {
					seen[l]++
				}
			}
			for l := range written {
				if seen[l] != 1 {
					t.Errorf("line %q written %d times", l, seen[l])
				}
			}
			if len(seen) != len(written) {
				t.Errorf("%d lines in the log, %d reported written", len(seen), len(written))
			}
		})
	}
}
