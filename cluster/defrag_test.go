package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDefrag: defrag refuses a running node's directory; on a stopped one
// it shrinks the state database once deleted objects have left the
// history window, and the node starts again with its data.
func TestDefrag(t *testing.T) {
	dir := t.TempDir()
	start := func() *Node {
		n, err := Start(Config{Name: "n1", DataDir: dir, Listen: "127.0.0.1:0", PeerListen: "127.0.0.1:0", HistoryRetention: time.Second})
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if err := n.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
		return n
	}
	n := start()
	big := strings.Repeat("x", 200<<10)
	for i := range 40 {
		name := fmt.Sprintf("cm-%d", i)
		if code, body := httpDo(t, n, http.MethodPost, "/api/v1/namespaces/default/configmaps", configMap(name, big)); code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, code, body)
		}
		if i > 0 {
			httpDo(t, n, http.MethodDelete, fmt.Sprintf("/api/v1/namespaces/default/configmaps/cm-%d", i-1), "")
		}
	}
	rev := n.Store().Revision()
	pollUntil(t, "the deletes leave the history window", func() (bool, string) {
		// Compaction runs as writes come in.
		httpDo(t, n, http.MethodPost, "/api/v1/namespaces/default/configmaps", `{"metadata":{"generateName":"tick-"}}`)
		c := n.Store().Status().Compacted
		return c >= rev, fmt.Sprintf("compacted %d, want %d", c, rev)
	})
	if _, err := Defrag(dir); !errors.Is(err, ErrInUse) {
		t.Fatalf("defrag of a running node: %v, want ErrInUse", err)
	}
	stopNode(t, n)
	res, err := Defrag(dir)
	if err != nil {
		t.Fatalf("defrag: %v", err)
	}
	if len(res) != 1 || filepath.Base(res[0].File) != "state.db" {
		t.Fatalf("defragmented %+v, want the state database alone (the raft log is a WAL)", res)
	}
	for _, r := range res {
		t.Logf("%s: %d -> %d bytes", r.File, r.Before, r.After)
		if r.After <= 0 || r.After > r.Before {
			t.Errorf("%s grew or vanished: %d -> %d", r.File, r.Before, r.After)
		}
	}
	if res[0].After >= res[0].Before/2 {
		t.Errorf("the state database did not shrink by half: %d -> %d", res[0].Before, res[0].After)
	}
	n = start()
	t.Cleanup(func() { stopNode(t, n) })
	if code, body := httpDo(t, n, http.MethodGet, "/api/v1/namespaces/default/configmaps/cm-39", ""); code != http.StatusOK {
		t.Fatalf("after defrag: %d %s", code, body)
	}
}
