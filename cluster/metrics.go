package cluster

import (
	"net/http"

	"github.com/raftapi/raftapi/raftstore"
)

// metrics is the node's Prometheus registry. (Being implemented.)
type metrics struct{}

func newMetrics(*raftstore.Store) *metrics { return &metrics{} }

func (m *metrics) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "not implemented", http.StatusNotImplemented) })
}

func (m *metrics) instrument(h http.Handler) http.Handler { return h }
