package cluster

import (
	"net/http"
	"net/http/pprof"
)

// mountProfiling serves Go's runtime profiles as kube-apiserver does with
// --profiling: /debug/pprof/ (the index and every named profile),
// /debug/pprof/profile (CPU), /debug/pprof/symbol and /debug/pprof/trace.
// They sit behind the same authentication and authorization as the API;
// RBAC grants the non-resource URLs /debug/pprof/* to cluster-admin only.
func mountProfiling(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}
