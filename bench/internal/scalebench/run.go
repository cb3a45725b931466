package scalebench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/kubeapi"
	"github.com/raftapi/raftapi/bench/internal/procs"
	"github.com/raftapi/raftapi/bench/internal/raftnodes"
)

// The namespaces of a run.
const (
	listNS = "scale-list" // ListObjects, listed, paged, churned
	bulkNS = "scale-bulk" // the rest of RestartObjects
)

// run is the state of one bench-scale run.
type run struct {
	cfg     Config
	c       *raftnodes.Cluster
	clients []*kubeapi.Client
	value   string
	// objs are the listed namespace's objects.
	objs listed
	// held is the sum of the sizes of the objects written, as stored.
	held int64
	// listBuf holds the body of the latest timedList.
	listBuf bytes.Buffer
	logMu   sync.Mutex
}

// Run starts the cluster and runs the steps in order, each using what
// the previous ones left. It returns what it measured up to the first
// step that failed, with that failure in Problems.
func Run(ctx context.Context, cfg Config) Results {
	var group procs.Group
	defer group.StopAll()
	dir := filepath.Join(cfg.WorkDir, "raftapi")
	defer os.RemoveAll(dir)
	r := &run{cfg: cfg, value: figures.NewValue(cfg.ValueSize)}
	var res Results
	r.logf("raftapi: starting %d nodes in %s", cfg.Nodes, dir)
	c, err := raftnodes.Start(ctx, raftnodes.Config{Binary: cfg.Raftapi, Dir: dir, Nodes: cfg.Nodes, Procs: &group})
	if err != nil {
		res.Problems = append(res.Problems, err.Error())
		return res
	}
	r.c, r.clients = c, c.Clients(nil)
	for _, step := range r.steps() {
		err := ctx.Err()
		if err == nil {
			err = step(ctx, &res)
		}
		if err != nil {
			res.Problems = append(res.Problems, err.Error())
			break
		}
	}
	return res
}

// steps are the run's steps, in order.
func (r *run) steps() []func(context.Context, *Results) error {
	s := []func(context.Context, *Results) error{r.watch, r.loadList, r.list, r.paged, r.exact, r.loadBulk, r.memory, r.restart}
	if r.cfg.CatchUp {
		s = append(s, r.catchUp)
	}
	return s
}

func (r *run) logf(format string, args ...any) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	fmt.Fprintf(r.cfg.Log, format+"\n", args...)
}
