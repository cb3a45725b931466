package cluster

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/raftstore"
)

// health serves /livez, /readyz and /healthz the way kube-apiserver does:
// "ok", or with ?verbose one "[+]name ok" line per check; a failure is a
// 500 listing every check ("[-]name failed: reason withheld"). ?exclude=name
// skips a check (repeatable), and /readyz/<name> (likewise /livez, /healthz)
// runs one check, giving its reason on failure.
//
// The checks:
//   - ping: the HTTP server answers.
//   - raft: the raft node is running (not shut down).
//   - raft-leader: the node knows a leader.
//   - raft-caught-up: the node has applied the leader's commit index as
//     it was when a leader first became known after start (a quorum read
//     index). Once passed it stays passed.
//   - poststarthook/system-namespaces: default, kube-system, kube-public
//     and kube-node-lease exist. Once passed it stays passed.
//   - poststarthook/rbac/bootstrap-roles: the node's RBAC authorizer has
//     loaded the roles and bindings it holds, and they include the default
//     policy. Once passed it stays passed.
//
// /livez runs ping and raft; /readyz and /healthz run them all, so a node
// cut off from its quorum is alive but not ready.
type health struct {
	store *raftstore.Store
	// target is the read index the node must apply once; 0 until known.
	target   atomic.Uint64
	caughtUp atomic.Bool
	// namespaces reports whether the system namespaces exist; set once
	// by setSystemNamespaces before serving.
	namespaces   func() error
	namespacesOK atomic.Bool
	// rbac reports whether the node authorizes with its roles; set once
	// before serving.
	rbac   func() error
	rbacOK atomic.Bool
}

// healthPoll is how often the node looks for a leader before it has
// learned its catch-up target.
const healthPoll = 50 * time.Millisecond

func newHealth(s *raftstore.Store) *health {
	h := &health{store: s}
	go h.learnTarget()
	return h
}

// learnTarget records the leader's read index the first time one is
// obtained. It returns then, or once the store has shut down.
func (h *health) learnTarget() {
	t := time.NewTicker(healthPoll)
	defer t.Stop()
	for range t.C {
		st := h.store.Status()
		if st.State == "Shutdown" {
			return
		}
		if st.LeaderID == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		idx, err := h.store.ReadIndex(ctx)
		cancel()
		if err == nil {
			h.target.Store(max(idx, 1))
			return
		}
	}
}

type check struct {
	name string
	fn   func() error
}

// checks returns the checks of endpoint ("livez", "readyz" or "healthz"),
// nil for any other.
func (h *health) checks(endpoint string) []check {
	live := []check{{"ping", func() error { return nil }}, {"raft", h.raftRunning}}
	switch endpoint {
	case "livez":
		return live
	case "readyz", "healthz":
		return append(live, check{"raft-leader", h.leaderKnown}, check{"raft-caught-up", h.caughtUpOnce},
			check{"poststarthook/system-namespaces", h.systemNamespaces},
			check{"poststarthook/rbac/bootstrap-roles", func() error { return passOnce(&h.rbacOK, h.rbac) }})
	}
	return nil
}

func (h *health) raftRunning() error {
	if h.store.Status().State == "Shutdown" {
		return fmt.Errorf("raft is shut down")
	}
	return nil
}

func (h *health) leaderKnown() error {
	if h.store.Status().LeaderID == "" {
		return fmt.Errorf("no leader known")
	}
	return nil
}

func (h *health) caughtUpOnce() error {
	if h.caughtUp.Load() {
		return nil
	}
	target := h.target.Load()
	if target == 0 {
		return fmt.Errorf("leader's commit index not learned yet")
	}
	if !h.store.CaughtUp(target) {
		return fmt.Errorf("applied index %d, catching up to %d", h.store.Revision(), target)
	}
	h.caughtUp.Store(true)
	return nil
}

func (h *health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	endpoint, name, _ := strings.Cut(strings.Trim(r.URL.Path, "/"), "/")
	checks := h.checks(endpoint)
	if checks == nil {
		http.NotFound(w, r)
		return
	}
	if name == "" {
		h.serveAll(w, r, endpoint, checks)
		return
	}
	for _, c := range checks {
		if c.name == name {
			serveOne(w, c)
			return
		}
	}
	http.NotFound(w, r)
}

// serveOne serves /<endpoint>/<name>.
func serveOne(w http.ResponseWriter, c check) {
	if err := c.fn(); err != nil {
		http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	fmt.Fprint(w, "ok")
}

// serveAll serves /<endpoint>, as k8s.io/apiserver's healthz handler.
func (h *health) serveAll(w http.ResponseWriter, r *http.Request, endpoint string, checks []check) {
	excluded := map[string]bool{}
	for _, e := range r.URL.Query()["exclude"] {
		excluded[e] = true
	}
	var b strings.Builder
	failed := false
	for _, c := range checks {
		if excluded[c.name] {
			delete(excluded, c.name)
			fmt.Fprintf(&b, "[+]%s excluded: ok\n", c.name)
			continue
		}
		if err := c.fn(); err != nil {
			failed = true
			fmt.Fprintf(&b, "[-]%s failed: reason withheld\n", c.name)
			continue
		}
		fmt.Fprintf(&b, "[+]%s ok\n", c.name)
	}
	if len(excluded) > 0 {
		fmt.Fprintf(&b, "warn: some health checks cannot be excluded: no matches for %s\n", quotedKeys(excluded))
	}
	if failed {
		http.Error(w, fmt.Sprintf("%s%s check failed", b.String(), endpoint), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if _, verbose := r.URL.Query()["verbose"]; !verbose {
		fmt.Fprint(w, "ok")
		return
	}
	fmt.Fprintf(w, "%s%s check passed\n", b.String(), endpoint)
}

func quotedKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, fmt.Sprintf("%q", k))
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// systemNamespaces passes once the system namespaces have been seen.
func (h *health) systemNamespaces() error { return passOnce(&h.namespacesOK, h.namespaces) }

// passOnce runs check until it passes once, recorded in ok; a nil check
// passes.
func passOnce(ok *atomic.Bool, check func() error) error {
	if ok.Load() || check == nil {
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	ok.Store(true)
	return nil
}
