package discovery

import (
	"net/http"
	"runtime"
	"strings"

	"k8s.io/apimachinery/pkg/version"
)

// KubeVersion is the Kubernetes release whose API the server implements:
// the release of the k8s.io/api and k8s.io/apimachinery modules it is
// built with (v0.X.Y is Kubernetes v1.X.Y; a test keeps them in step).
const KubeVersion = "v1.37.2"

// Info returns the /version document: the Kubernetes version whose API the
// server implements, and the Go runtime it runs on.
func Info() version.Info {
	major, minor := majorMinor(KubeVersion)
	return version.Info{
		Major:      major,
		Minor:      minor,
		GitVersion: KubeVersion + "-raftapi",
		GoVersion:  runtime.Version(),
		Compiler:   runtime.Compiler,
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// majorMinor splits "v1.37.2" into "1" and "37".
func majorMinor(v string) (major, minor string) {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return parts[0], ""
	}
	return parts[0], parts[1]
}

// serveVersion serves /version.
func (h *Handler) serveVersion(w http.ResponseWriter, r *http.Request) {
	info := Info()
	writeDocument(w, r, "application/json", &info)
}
