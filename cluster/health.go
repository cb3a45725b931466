package cluster

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/raftapi/raftapi/raftstore"
)

// health serves /livez, /readyz and /healthz in kube-apiserver's format:
// "ok" or a 500 listing the failed checks; ?verbose lists every check.
type health struct {
	store *raftstore.Store
}

func newHealth(s *raftstore.Store) http.Handler { return &health{store: s} }

type check struct {
	name string
	fn   func() error
}

func (h *health) checks(path string) []check {
	out := []check{{"ping", func() error { return nil }}}
	if strings.HasPrefix(path, "/livez") {
		return out
	}
	return append(out, check{"raft-leader", func() error {
		if st := h.store.Status(); st.LeaderID == "" {
			return fmt.Errorf("no leader known")
		}
		return nil
	}})
}

func (h *health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	failed := false
	for _, c := range h.checks(r.URL.Path) {
		if err := c.fn(); err != nil {
			failed = true
			fmt.Fprintf(&b, "[-]%s failed: %v\n", c.name, err)
		} else {
			fmt.Fprintf(&b, "[+]%s ok\n", c.name)
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if failed {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "%s%s check failed\n", b.String(), strings.Trim(r.URL.Path, "/"))
		return
	}
	if _, verbose := r.URL.Query()["verbose"]; verbose {
		fmt.Fprintf(w, "%s%s check passed\n", b.String(), strings.Trim(r.URL.Path, "/"))
		return
	}
	fmt.Fprint(w, "ok")
}
