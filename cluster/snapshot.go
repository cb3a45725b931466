package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/raftapi/raftapi/raftstore"
)

// SnapshotPath streams a consistent snapshot of the node's state.
const SnapshotPath = "/raftapi/v1/snapshot"

// RevisionHeader carries the revision (resourceVersion) of a snapshot
// served at SnapshotPath.
const RevisionHeader = "X-Raftapi-Revision"

// snapshotHandler serves GET SnapshotPath: a backup of the node's state at
// a Most Recent point, as a state file, with its revision in
// RevisionHeader and its size in Content-Length. A failure while streaming
// cuts the response short of Content-Length.
func snapshotHandler(s *raftstore.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		b, err := s.OpenBackup(r.Context())
		if err != nil {
			snapshotError(w, err)
			return
		}
		defer b.Close()
		h := w.Header()
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Length", strconv.FormatInt(b.Size(), 10))
		h.Set(RevisionHeader, strconv.FormatUint(b.Revision(), 10))
		h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="raftapi-%d.snapshot"`, b.Revision()))
		_, _ = b.WriteTo(w)
	})
}

func snapshotError(w http.ResponseWriter, err error) {
	if raftstore.IsUnavailable(err) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// SnapshotInfo describes a saved snapshot.
type SnapshotInfo struct {
	// Revision is the resourceVersion the snapshot was taken at.
	Revision uint64
	// Size is the file's size in bytes.
	Size int64
}

// SaveSnapshot streams a snapshot from the node whose HTTP API is at
// server (a URL such as https://127.0.0.1:8080), through client, which
// carries an admin credential, into the file path. The file
// is written beside its final name, synced, checked to be a complete state
// file of the announced revision, and only then renamed into place: path
// never holds a partial snapshot.
func SaveSnapshot(ctx context.Context, client *http.Client, server, path string) (SnapshotInfo, error) {
	resp, err := getSnapshot(ctx, client, server)
	if err != nil {
		return SnapshotInfo{}, err
	}
	defer resp.Body.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("cluster: save snapshot: %w", err)
	}
	defer os.Remove(tmp.Name())
	size, err := receive(tmp, resp)
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("cluster: save snapshot: %w", err)
	}
	rev, err := raftstore.CheckBackup(tmp.Name())
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("cluster: save snapshot: %w", err)
	}
	if want := resp.Header.Get(RevisionHeader); want != "" && want != strconv.FormatUint(rev, 10) {
		return SnapshotInfo{}, fmt.Errorf("cluster: save snapshot: file holds revision %d, server announced %s", rev, want)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return SnapshotInfo{}, fmt.Errorf("cluster: save snapshot: %w", err)
	}
	if err := raftstore.SyncDir(filepath.Dir(path)); err != nil {
		return SnapshotInfo{}, fmt.Errorf("cluster: save snapshot: %w", err)
	}
	return SnapshotInfo{Revision: rev, Size: size}, nil
}

func getSnapshot(ctx context.Context, client *http.Client, server string) (*http.Response, error) {
	url := strings.TrimSuffix(server, "/") + SnapshotPath
	if !strings.Contains(server, "://") {
		url = "http://" + url
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("cluster: save snapshot: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cluster: save snapshot: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("cluster: save snapshot: %s: %s: %s", url, resp.Status, strings.TrimSpace(string(msg)))
	}
	return resp, nil
}

// receive copies the response body into f, checks it is as long as
// announced, syncs and closes f.
func receive(f *os.File, resp *http.Response) (int64, error) {
	n, err := io.Copy(f, resp.Body)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("received %d of %d bytes", n, resp.ContentLength)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// RestoreConfig says how RestoreSnapshot prepares a data directory.
type RestoreConfig struct {
	// DataDir is the directory to prepare; it must not exist or be empty.
	// Default DefaultDataDir.
	DataDir string
	// Name is the node that will run on DataDir. Default DefaultName.
	Name string
	// PeerListen is the node's peer address, used when InitialCluster is
	// empty. Default DefaultPeerListen.
	PeerListen string
	// InitialCluster maps every node of the restored cluster to its peer
	// address; empty: a single node Name at PeerListen.
	InitialCluster map[string]string
	// Token is the restored cluster's join token, stored in DataDir so
	// that the node starts with it. Required for a cluster of several
	// nodes (the same on every node); a single node makes one if empty.
	Token string
}

// RestoreSnapshot prepares a data directory from a snapshot file so that a
// node started on it (with the same name, advertising the peer address
// InitialCluster gives it) serves the snapshot's objects at their
// resourceVersions as a member of a new cluster: see
// raftstore.PrepareRestore. Every node of a restored cluster is prepared
// from the same file with the same InitialCluster. It returns the
// snapshot's revision.
func RestoreSnapshot(file string, c RestoreConfig) (uint64, error) {
	// The same defaults as a node started with no flags.
	d := Config{DataDir: c.DataDir, Name: c.Name, PeerListen: c.PeerListen}.withDefaults()
	c.DataDir, c.Name, c.PeerListen = d.DataDir, d.Name, d.PeerListen
	members := c.InitialCluster
	if len(members) == 0 {
		members = map[string]string{c.Name: c.PeerListen}
	}
	if _, err := os.Stat(file); err != nil {
		return 0, fmt.Errorf("cluster: restore snapshot: %w", err)
	}
	if len(members) > 1 && c.Token == "" {
		return 0, errors.New("cluster: restore snapshot: a cluster of several nodes needs --token, the same for every node: each derives the cluster's CAs from it")
	}
	rev, err := raftstore.PrepareRestore(file, raftstore.RestoreConfig{DataDir: c.DataDir, Name: c.Name, InitialCluster: members})
	if err != nil {
		if errors.Is(err, raftstore.ErrDataDirNotEmpty) {
			return 0, fmt.Errorf("cluster: restore snapshot: %w (restore into a new directory)", err)
		}
		return 0, fmt.Errorf("cluster: restore snapshot: %w", err)
	}
	if c.Token != "" {
		cfg := Config{DataDir: c.DataDir, Token: c.Token, InitialCluster: members}
		if _, _, err := resolveToken(cfg); err != nil {
			return 0, fmt.Errorf("cluster: restore snapshot: %w", err)
		}
	}
	return rev, nil
}

// SnapshotStatus describes a snapshot file (raftapi snapshot status).
type SnapshotStatus struct {
	// Revision is the resourceVersion the snapshot was taken at.
	Revision uint64 `json:"revision"`
	// Objects is the number of objects it holds.
	Objects int `json:"objects"`
	// Changes is the number of change records kept for reads at past
	// revisions (a restore drops them).
	Changes int `json:"changes"`
	// Compacted is the history boundary when the snapshot was taken.
	Compacted uint64 `json:"compacted"`
	// Size is the file's size in bytes.
	Size int64 `json:"size"`
	// SHA256 is the hex SHA-256 hash of the file, to compare copies.
	SHA256 string `json:"sha256"`
}

// InspectSnapshot checks that path holds a complete snapshot and
// describes it.
func InspectSnapshot(path string) (SnapshotStatus, error) {
	st, err := raftstore.InspectBackup(path)
	if err != nil {
		return SnapshotStatus{}, err
	}
	sum, err := fileSHA256(path)
	if err != nil {
		return SnapshotStatus{}, err
	}
	return SnapshotStatus{Revision: st.Applied, Objects: st.Objects, Changes: st.Changes, Compacted: st.Compacted, Size: st.Size, SHA256: sum}, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
