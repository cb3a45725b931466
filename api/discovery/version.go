package discovery

import (
	"net/http"
	"runtime"

	"k8s.io/apimachinery/pkg/version"
)

// Info returns the /version document: the Kubernetes version whose API the
// server implements, and the Go runtime it runs on.
func Info() version.Info {
	return version.Info{
		Major:      "1",
		Minor:      "32",
		GitVersion: "v1.32.0-raftapi",
		GoVersion:  runtime.Version(),
		Compiler:   runtime.Compiler,
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// serveVersion serves /version.
func (h *Handler) serveVersion(w http.ResponseWriter, r *http.Request) {
	info := Info()
	writeDocument(w, r, "application/json", &info)
}
