package convbench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/kubeapi"
	"github.com/raftapi/raftapi/bench/internal/procs"
	"github.com/raftapi/raftapi/bench/internal/raftnodes"
	"github.com/raftapi/raftapi/bench/internal/target"
)

// Config is a bench-conversion run.
type Config struct {
	// Raftapi is the raftapi binary.
	Raftapi string
	// Nodes is the cluster's size.
	Nodes int
	// Figures sizes the figures: Clients holds the one client count of
	// the get and list figures, ListItems the objects of each target's
	// read namespace.
	Figures figures.Config
	// Rounds is how many times each figure runs on each way; the table
	// shows the median round.
	Rounds int
	// WorkDir holds the nodes' data; the caller removes it.
	WorkDir string
	// Log receives progress lines.
	Log io.Writer
}

// The ways through which the figures read, in the table's order.
const (
	Storage     = "storage version"
	None        = "None"
	Declarative = "ConversionPolicy"
)

// Results are the outcomes of each way, in figure order: the median
// rounds, and every round.
type Results struct {
	Ways     []string                     `json:"ways"`
	Outcomes map[string][]figures.Outcome `json:"outcomes"`
	Rounds   map[string][]figures.Outcome `json:"rounds"`
}

// Run starts a cluster, defines the CRDs and runs every figure through
// each way in turn.
func Run(ctx context.Context, cfg Config) (Results, error) {
	var group procs.Group
	defer group.StopAll()
	dir := filepath.Join(cfg.WorkDir, "raftapi")
	fmt.Fprintf(cfg.Log, "raftapi: starting %d nodes in %s\n", cfg.Nodes, dir)
	c, err := raftnodes.Start(ctx, raftnodes.Config{Binary: cfg.Raftapi, Dir: dir, Nodes: cfg.Nodes, Procs: &group})
	if err != nil {
		return Results{}, err
	}
	defer os.RemoveAll(dir)
	leader, err := c.LeaderIndex(ctx)
	if err != nil {
		return Results{}, err
	}
	clients := leaderLast(c.Clients(nil), leader)
	for _, d := range []crd{noneCRD, policyCRD} {
		if err := define(ctx, clients, d); err != nil {
			return Results{}, err
		}
	}
	reads, err := prepare(ctx, cfg, targets(clients, c.NewTransport))
	if err != nil {
		return Results{}, err
	}
	return measure(ctx, cfg, reads)
}

// targets are the ways to read: the policy's CRD through its storage
// version v1, the None CRD through v2, the policy's CRD through v2.
func targets(clients []*kubeapi.Client, newTransport func() *http.Transport) []*target.Custom {
	way := func(name string, d crd, v, prefix string) *target.Custom {
		return target.NewCustom(target.CustomConfig{Name: name, Resource: d.objects(v), Kind: d.kind, Field: d.field(v),
			NamespacePrefix: prefix}, clients, newTransport)
	}
	return []*target.Custom{
		way(Storage, policyCRD, "v1", "conv-storage-"),
		way(None, noneCRD, "v2", "conv-none-"),
		way(Declarative, policyCRD, "v2", "conv-policy-"),
	}
}

// prepare fills each target's read namespace, writing through its way.
func prepare(ctx context.Context, cfg Config, ts []*target.Custom) ([]*figures.Reads, error) {
	var out []*figures.Reads
	for _, t := range ts {
		fmt.Fprintf(cfg.Log, "%s: creating %d objects\n", t.Name(), cfg.Figures.ListItems)
		r, err := figures.NewReads(ctx, t, cfg.Figures)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// measure runs each figure Rounds times on every target, the targets in
// turn and each round starting one target later, so that every target
// runs first as often as the others and the load the machine has besides
// weighs on them alike; each target's figure is its median round.
func measure(ctx context.Context, cfg Config, reads []*figures.Reads) (Results, error) {
	res := Results{Ways: []string{Storage, None, Declarative}, Outcomes: map[string][]figures.Outcome{},
		Rounds: map[string][]figures.Outcome{}}
	runs := []func(*figures.Reads) (figures.Outcome, error){
		func(r *figures.Reads) (figures.Outcome, error) { return r.Get(ctx), nil },
		func(r *figures.Reads) (figures.Outcome, error) { return r.List(ctx), nil },
		func(r *figures.Reads) (figures.Outcome, error) { return r.Watch(ctx) },
	}
	for _, run := range runs {
		byWay := map[string][]figures.Outcome{}
		for round := range max(cfg.Rounds, 1) {
			for i := range reads {
				o, err := run(reads[(i+round)%len(reads)])
				if err != nil {
					return res, err
				}
				byWay[o.Target] = append(byWay[o.Target], o)
			}
		}
		for way, os := range byWay {
			res.Outcomes[way] = append(res.Outcomes[way], median(os))
			res.Rounds[way] = append(res.Rounds[way], os...)
		}
	}
	return res, ctx.Err()
}

// median returns the outcome of median throughput (the watch figure's
// throughput is paced: of median p99 latency), noting every round's.
func median(os []figures.Outcome) figures.Outcome {
	sorted := slices.Clone(os)
	key := func(o figures.Outcome) float64 {
		if o.Watch != nil {
			return float64(o.Summary.P99)
		}
		return o.Summary.OpsPerSec
	}
	slices.SortFunc(sorted, func(a, b figures.Outcome) int { return cmp.Compare(key(a), key(b)) })
	m := sorted[len(sorted)/2]
	if len(os) > 1 {
		var rounds []string
		for _, o := range os {
			rounds = append(rounds, fmt.Sprintf("%.0f ops/s p99 %v", o.Summary.OpsPerSec, o.Summary.P99.Round(100*time.Microsecond)))
		}
		note := fmt.Sprintf("median of %d rounds (%s)", len(os), strings.Join(rounds, "; "))
		if m.Note != "" {
			note = m.Note + "; " + note
		}
		m.Note = note
	}
	return m
}

// leaderLast orders the nodes' clients with the leader's last, as
// bench-cluster does.
func leaderLast(clients []*kubeapi.Client, leader int) []*kubeapi.Client {
	out := slices.Concat(clients[:leader], clients[leader+1:])
	return append(out, clients[leader])
}
