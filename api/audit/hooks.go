package audit

import (
	"context"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Annotations kube-apiserver's authorization filter puts on the event.
const (
	DecisionAnnotationKey = "authorization.k8s.io/decision"
	ReasonAnnotationKey   = "authorization.k8s.io/reason"
	DecisionAllow         = "allow"
	DecisionForbid        = "forbid"
	// ReasonError is the reason recorded when the authorizer failed.
	ReasonError = "internal error"
)

// The hooks below are how the serving chain tells the audit filter what
// it learns about a request. Each takes the request's context (the one
// Handler passed on, or one derived from it) and does nothing for a
// context without an audit record (an in-process call) or when auditing
// is off. They may be called from any goroutine.

func recordFrom(ctx context.Context) *record {
	rec, _ := ctx.Value(recordKey{}).(*record)
	return rec
}

// IDFrom returns the audit ID of the request ctx belongs to, for logs.
func IDFrom(ctx context.Context) (string, bool) {
	rec := recordFrom(ctx)
	if rec == nil {
		return "", false
	}
	return rec.id, true
}

// Authenticated is called by authentication once it has identified the
// request's user u, before impersonation and authorization — where
// kube-apiserver's audit filter sits: it evaluates the policy with u and
// the request's attributes and writes the RequestReceived event. It
// returns an error only in blocking-strict mode, when that event could
// not be written; the request must then fail with a 500.
func Authenticated(ctx context.Context, u user.Info) error {
	rec := recordFrom(ctx)
	if rec == nil || !rec.a.Enabled() {
		return nil
	}
	recorded, first := rec.begin(u)
	if !recorded || !first {
		return nil
	}
	if !rec.emit(auditv1.StageRequestReceived, time.Now()) && rec.a.backend.strict {
		return errNotStored
	}
	return nil
}

// LogImpersonatedUser records u, the user the request acts as once
// impersonation was allowed; the event's user stays the authenticated
// one.
func LogImpersonatedUser(ctx context.Context, u user.Info) {
	rec := recordFrom(ctx)
	if rec == nil || !rec.recorded() {
		return
	}
	info := userInfo(u)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.event.ImpersonatedUser = &info
}

// AddAnnotation sets the event's annotation key to value for the request
// ctx belongs to, as kube's AddAuditAnnotation: a key already set to
// another value keeps its first value. Annotations added before
// Authenticated are kept if the request is recorded.
func AddAnnotation(ctx context.Context, key, value string) {
	rec := recordFrom(ctx)
	if rec == nil || !rec.a.Enabled() {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	switch {
	case !rec.initialized:
		if rec.pending == nil {
			rec.pending = map[string]string{}
		}
		if _, set := rec.pending[key]; !set {
			rec.pending[key] = value
		}
	case rec.cfg.level != auditv1.LevelNone:
		addAnnotationLocked(&rec.event, key, value)
	}
}

func addAnnotationLocked(ev *auditv1.Event, key, value string) {
	if ev.Annotations == nil {
		ev.Annotations = map[string]string{}
	}
	if _, set := ev.Annotations[key]; !set {
		ev.Annotations[key] = value
	}
}

// LogAuthorizationDecision records the authorizer's answer for the
// request as kube-apiserver's authorization filter does: for an allowed
// request decision "allow" and the reason (even empty); for a failed
// authorizer only the reason "internal error"; otherwise decision
// "forbid" and the reason. Authorization calls it once per request, not
// for the checks it makes on the request's behalf (impersonation).
func LogAuthorizationDecision(ctx context.Context, d authorizer.Decision, reason string, err error) {
	switch {
	case d == authorizer.DecisionAllow:
		AddAnnotation(ctx, DecisionAnnotationKey, DecisionAllow)
		AddAnnotation(ctx, ReasonAnnotationKey, reason)
	case err != nil:
		AddAnnotation(ctx, ReasonAnnotationKey, ReasonError)
	default:
		AddAnnotation(ctx, DecisionAnnotationKey, DecisionForbid)
		AddAnnotation(ctx, ReasonAnnotationKey, reason)
	}
}
