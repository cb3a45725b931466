package cluster

import (
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/raftapi/raftapi/api/httpstatus"
	"github.com/raftapi/raftapi/pki"
)

// Defaults of kube-apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight.
const (
	DefaultMaxRequestsInflight         = 400
	DefaultMaxMutatingRequestsInflight = 200
)

// inflight bounds the requests a node serves at once, as kube-apiserver's
// max-in-flight filter: read-only and mutating requests each against
// their own limit, a request over it answered 429 TooManyRequests with
// Retry-After at once. Long-running requests (watches), system:masters
// and the health checks the kubelet probes with are exempt. A nil
// channel is no limit.
type inflight struct {
	readonly, mutating chan struct{}
}

func newInflight(readonly, mutating int) *inflight {
	l := &inflight{}
	if readonly > 0 {
		l.readonly = make(chan struct{}, readonly)
	}
	if mutating > 0 {
		l.mutating = make(chan struct{}, mutating)
	}
	return l
}

// limit wraps next; it runs after authentication (the user is in the
// request's context).
func (l *inflight) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sem := l.readonly
		if isMutating(r.Method) {
			sem = l.mutating
		}
		if sem == nil || exemptFromInflight(r) {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", "1")
			httpstatus.Write(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
		}
	})
}

func isMutating(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// exemptFromInflight: watches, system:masters, and the health checks.
func exemptFromInflight(r *http.Request) bool {
	if u, ok := UserFrom(r.Context()); ok && u.in(pki.AdminGroup) {
		return true
	}
	for _, p := range []string{"/livez", "/readyz", "/healthz"} {
		if r.URL.Path == p || strings.HasPrefix(r.URL.Path, p+"/") {
			return true
		}
	}
	return isWatch(r)
}
