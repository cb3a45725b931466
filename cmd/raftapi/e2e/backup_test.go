package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSnapshotSaveRestoreCluster saves a snapshot from a 3-node cluster
// while writers create objects through every node, restores it into a new
// 3-node cluster and checks the restored cluster: every write acknowledged
// at or below the snapshot's revision is there with its resourceVersion,
// nothing written after it is, new writes get higher resourceVersions and a
// watch from before the snapshot is told 410 Gone.
func TestSnapshotSaveRestoreCluster(t *testing.T) {
	c := startCluster(t, 3)
	w := startWriters(c, 4, 100)
	waitFor(t, 60*time.Second, "100 acknowledged writes", func() bool { return w.acked.Load() >= 100 || w.finished() })
	ackedBefore := w.maxAckedRev()
	file := filepath.Join(t.TempDir(), "backup.snapshot")
	rev := saveSnapshot(t, c.nodes[1], file)
	saved := w.acked.Load()
	waitFor(t, 60*time.Second, "40 acknowledged writes after the save", func() bool { return w.acked.Load() >= saved+40 || w.finished() })
	records := w.stop()
	if rev < ackedBefore {
		t.Fatalf("snapshot at revision %d misses a write acknowledged before the save at %d", rev, ackedBefore)
	}

	r := restoreCluster(t, file, 3)
	checkRestored(t, r, records, rev)
	checkWatchExpired(t, r.nodes[2].api, rev-1)
	created, oc, err := write(context.Background(), http.MethodPost, cmURL(r.nodes[1].api, ""), newConfigMap("after-restore", "x"))
	if oc != acked {
		t.Fatalf("write on the restored cluster: %v", err)
	}
	if got := mustRev(t, created.Metadata.ResourceVersion); got <= rev {
		t.Fatalf("write on the restored cluster at resourceVersion %d, not above the snapshot's %d", got, rev)
	}
	for i := range r.nodes {
		waitFor(t, 30*time.Second, "the new write on every restored node", func() bool {
			got, _, err := get(context.Background(), r.nodes[i].api, "after-restore", created.Metadata.ResourceVersion)
			return err == nil && got.Metadata.ResourceVersion == created.Metadata.ResourceVersion
		})
	}
}

// TestSnapshotRestoreDefaults restores a single node with restore's
// default name and cluster (the node named raftapi at --peer-listen) and
// starts it with serve's defaults for the same.
func TestSnapshotRestoreDefaults(t *testing.T) {
	c := startCluster(t, 1)
	var records []writeRecord
	for i := range 20 {
		name := fmt.Sprintf("single-%d", i)
		out, oc, err := write(context.Background(), http.MethodPost, cmURL(c.nodes[0].api, ""), newConfigMap(name, "x"))
		if oc != acked {
			t.Fatalf("create %s: %v", name, err)
		}
		records = append(records, writeRecord{name: name, outcome: acked, rv: out.Metadata.ResourceVersion})
	}
	file := filepath.Join(t.TempDir(), "single.snapshot")
	rev := saveSnapshot(t, c.nodes[0], file)
	if last := mustRev(t, records[len(records)-1].rv); rev < last {
		t.Fatalf("snapshot at revision %d misses the last write at %d", rev, last)
	}

	nd := &node{name: "raftapi", dir: t.TempDir(), api: freeAddr(t), peer: freeAddr(t)}
	run(t, binary, "snapshot", "restore", file, "--data-dir", nd.dataDir(), "--peer-listen", nd.peer)
	r := &procCluster{t: t, nodes: []*node{nd}}
	t.Cleanup(r.stopAll)
	r.startNode(0, "")
	r.waitLeader(-1)
	checkRestored(t, r, records, rev)
	checkWatchExpired(t, nd.api, rev-1)
	created, oc, err := write(context.Background(), http.MethodPost, cmURL(nd.api, ""), newConfigMap("after-restore", "x"))
	if oc != acked {
		t.Fatalf("write on the restored node: %v", err)
	}
	if got := mustRev(t, created.Metadata.ResourceVersion); got <= rev {
		t.Fatalf("write on the restored node at resourceVersion %d, not above the snapshot's %d", got, rev)
	}
}

// writers create objects concurrently through every node of a cluster.
type writers struct {
	acked   atomic.Int64
	done    atomic.Int64
	n       int
	quit    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	records []writeRecord
}

// startWriters starts n writers making up to per creates each.
func startWriters(c *procCluster, n, per int) *writers {
	w := &writers{n: n, quit: make(chan struct{})}
	for g := range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer w.done.Add(1)
			for i := 0; i < per; i++ {
				select {
				case <-w.quit:
					return
				default:
				}
				w.create(c.nodes[(g+i)%len(c.nodes)].api, fmt.Sprintf("b%d-%d", g, i))
			}
		}()
	}
	return w
}

func (w *writers) create(addr, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, oc, _ := write(ctx, http.MethodPost, cmURL(addr, ""), newConfigMap(name, "x"))
	rec := writeRecord{name: name, outcome: oc}
	if oc == acked {
		rec.rv = out.Metadata.ResourceVersion
	}
	w.mu.Lock()
	w.records = append(w.records, rec)
	w.mu.Unlock()
	if oc == acked {
		w.acked.Add(1)
	}
}

// maxAckedRev is the highest resourceVersion acknowledged so far.
func (w *writers) maxAckedRev() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	var top uint64
	for _, r := range w.records {
		if v, err := strconv.ParseUint(r.rv, 10, 64); err == nil && v > top {
			top = v
		}
	}
	return top
}

func (w *writers) finished() bool { return w.done.Load() == int64(w.n) }

// stop ends the writers and returns every write they made.
func (w *writers) stop() []writeRecord {
	close(w.quit)
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]writeRecord(nil), w.records...)
}

var savedRE = regexp.MustCompile(`revision (\d+), (\d+) bytes`)

// saveSnapshot runs "raftapi snapshot save" against nd, with its admin
// kubeconfig, and returns the revision it reports.
func saveSnapshot(t *testing.T, nd *node, file string) uint64 {
	t.Helper()
	out := run(t, binary, "snapshot", "save", file, "--kubeconfig", nd.kubeconfig())
	m := savedRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("snapshot save printed no revision and size: %q", out)
	}
	t.Logf("snapshot save: %s", strings.TrimSpace(out))
	return mustRev(t, m[1])
}

// restoreCluster restores file into n new data directories with fresh
// addresses and starts a cluster on them, with a new token.
func restoreCluster(t *testing.T, file string, n int) *procCluster {
	t.Helper()
	// The nodes start without --token: restore stores it in each data
	// directory.
	c := &procCluster{t: t}
	token := newToken()
	var initial []string
	for i := range n {
		nd := &node{name: fmt.Sprintf("r%d", i+1), dir: t.TempDir(), api: freeAddr(t), peer: freeAddr(t)}
		c.nodes = append(c.nodes, nd)
		initial = append(initial, nd.name+"="+nd.peer)
	}
	for _, nd := range c.nodes {
		run(t, binary, "snapshot", "restore", file, "--data-dir", nd.dataDir(),
			"--name", nd.name, "--initial-cluster", strings.Join(initial, ","), "--token", token)
	}
	t.Cleanup(c.stopAll)
	for i := range c.nodes {
		// The data directories hold raft state: no --initial-cluster.
		c.startNode(i, "")
	}
	c.waitLeader(-1)
	return c
}

// checkRestored checks every node of the restored cluster r against the
// writes made before and around a snapshot at rev: acknowledged at or
// below rev means present with that resourceVersion; anything else (after
// rev, failed, or unknown) must be absent or at or below rev.
func checkRestored(t *testing.T, r *procCluster, records []writeRecord, rev uint64) {
	t.Helper()
	var inSnapshot int
	for _, rec := range records {
		if rec.outcome == acked && mustRev(t, rec.rv) <= rev {
			inSnapshot++
		}
	}
	t.Logf("%d writes, %d acknowledged at or below the snapshot's revision %d", len(records), inSnapshot, rev)
	for i, nd := range r.nodes {
		for _, rec := range records {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			got, code, err := get(ctx, nd.api, rec.name, "")
			cancel()
			switch {
			case rec.outcome == acked && mustRev(t, rec.rv) <= rev:
				if err != nil || got.Metadata.ResourceVersion != rec.rv {
					t.Errorf("node %d: %s acknowledged at %s before the snapshot: got %d %v rv %q", i, rec.name, rec.rv, code, err, got.Metadata.ResourceVersion)
				}
			case err == nil:
				if mustRev(t, got.Metadata.ResourceVersion) > rev {
					t.Errorf("node %d: %s at rv %s, after the snapshot's %d", i, rec.name, got.Metadata.ResourceVersion, rev)
				}
				if rec.outcome != unknown {
					t.Errorf("node %d: %s (outcome %d, rv %q) exists at rv %s", i, rec.name, rec.outcome, rec.rv, got.Metadata.ResourceVersion)
				}
			case code != http.StatusNotFound:
				t.Errorf("node %d: get %s: %d %v", i, rec.name, code, err)
			}
		}
		if n := countConfigMaps(t, nd.api); n > inSnapshot+countUnknown(records) || n < inSnapshot {
			t.Errorf("node %d lists %d configmaps, want %d (+ up to %d of unknown outcome)", i, n, inSnapshot, countUnknown(records))
		}
	}
}

func countUnknown(records []writeRecord) int {
	n := 0
	for _, r := range records {
		if r.outcome == unknown {
			n++
		}
	}
	return n
}

// countConfigMaps counts the configmaps the test wrote in the default
// namespace of the node at addr.
func countConfigMaps(t *testing.T, addr string) int {
	t.Helper()
	var list struct {
		Items []configMap `json:"items"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := do(ctx, http.MethodGet, cmURL(addr, ""), nil, &list); err != nil {
		t.Fatalf("list configmaps: %v", err)
	}
	n := 0
	for _, cm := range list.Items {
		// kube-root-ca.crt is the server's, in every namespace.
		if cm.Metadata.Name != "kube-root-ca.crt" {
			n++
		}
	}
	return n
}

// checkWatchExpired watches configmaps from resourceVersion from and
// expects 410 Gone: as the response status or as an ERROR event carrying
// a Status with code 410.
func checkWatchExpired(t *testing.T, addr string, from uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := fmt.Sprintf("%s?watch=true&resourceVersion=%d", cmURL(addr, ""), from)
	hc, err := clientAt(addr)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("watch from %d: %v", from, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusGone {
		return
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch from %d: HTTP %d, want 200 with an ERROR event or 410", from, resp.StatusCode)
	}
	line, err := bufio.NewReader(resp.Body).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		t.Fatalf("watch from %d: no event: %v", from, err)
	}
	var ev struct {
		Type   string `json:"type"`
		Object struct {
			Kind string `json:"kind"`
			Code int    `json:"code"`
		} `json:"object"`
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		t.Fatalf("watch from %d: undecodable event %q: %v", from, line, err)
	}
	if ev.Type != "ERROR" || ev.Object.Kind != "Status" || ev.Object.Code != http.StatusGone {
		t.Fatalf("watch from %d before the snapshot: got %s, want an ERROR event with a 410 Status", from, line)
	}
}

func mustRev(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", s, err)
	}
	return v
}
