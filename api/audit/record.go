package audit

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// errNotStored fails a request whose RequestReceived event could not be
// written in blocking-strict mode (kube's message).
var errNotStored = errors.New("failed to store audit event")

// recordKey is the context key of a request's record.
type recordKey struct{}

// record is one request's audit state: the event built up as the
// request goes through the chain, and what the policy decided for it.
// Handler creates it; the hooks (Authenticated, LogImpersonatedUser,
// AddAnnotation, ...) and the response writer fill it in, from the
// request's goroutine or others, hence the lock.
type record struct {
	a        *Auditor
	req      *http.Request
	received time.Time
	id       string
	body     *bodyTee // the request body as read, nil without one

	mu          sync.Mutex
	initialized bool // the policy was evaluated
	cfg         requestConfig
	verb        string
	longRunning bool
	event       auditv1.Event
	// pending holds annotations added before the policy was evaluated.
	pending map[string]string
}

// begin evaluates the policy for the authenticated user u (nil after a
// failed authentication), fills the event's metadata and reports whether
// the request is recorded at all. It does nothing the second time.
func (rec *record) begin(u user.Info) (recorded, first bool) {
	attrs := rec.a.attributes(rec.req, u)
	cfg := rec.a.policy.evaluate(attrs)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.initialized {
		return rec.cfg.level != auditv1.LevelNone, false
	}
	rec.initialized, rec.cfg = true, cfg
	if cfg.level == auditv1.LevelNone {
		return false, true
	}
	rec.verb = attrs.GetVerb()
	rec.longRunning = isLongRunning(attrs)
	rec.event = newEvent(rec.req, rec.id, rec.received, cfg.level, attrs)
	for k, v := range rec.pending {
		addAnnotationLocked(&rec.event, k, v)
	}
	rec.pending = nil
	return true, true
}

// isLongRunning is kube-apiserver's long-running check: watches and
// proxies, and the streaming subresources.
func isLongRunning(attrs authorizer.Attributes) bool {
	if !attrs.IsResourceRequest() {
		return false
	}
	switch attrs.GetVerb() {
	case "watch", "proxy":
		return true
	}
	switch attrs.GetSubresource() {
	case "attach", "exec", "proxy", "log", "portforward":
		return true
	}
	return false
}

// recorded reports whether the request's events are written.
func (rec *record) recorded() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.initialized && rec.cfg.level != auditv1.LevelNone
}

// emit writes the event at stage unless the policy omits that stage; it
// reports false when the event could not be written.
func (rec *record) emit(stage auditv1.Stage, at time.Time) bool {
	rec.mu.Lock()
	if rec.cfg.omits(stage) {
		rec.mu.Unlock()
		return true
	}
	rec.event.Stage = stage
	rec.event.StageTimestamp = metav1.NewMicroTime(at)
	if stage == auditv1.StageRequestReceived {
		rec.event.StageTimestamp = rec.event.RequestReceivedTimestamp
	}
	line, err := rec.a.backend.encode(&rec.event)
	rec.mu.Unlock()
	if err != nil {
		rec.a.log.Error("audit event not written", "auditID", rec.id, "stage", stage, "err", err)
		return false
	}
	return rec.a.backend.write(line)
}

// setStatusCode records the response's HTTP code, as kube's audit
// response writer does when the response starts.
func (rec *record) setStatusCode(code int) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.event.ResponseStatus == nil {
		rec.event.ResponseStatus = &metav1.Status{}
	}
	rec.event.ResponseStatus.Code = int32(code)
}

// responseStarted is called once, when the response's status line is
// decided: it records the code and, for a long-running request, writes
// the ResponseStarted event.
func (rec *record) responseStarted(code int) {
	if !rec.recorded() {
		return
	}
	rec.setStatusCode(code)
	if rec.isLongRunning() {
		rec.emit(auditv1.StageResponseStarted, time.Now())
	}
}

func (rec *record) isLongRunning() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.longRunning
}

// panicked writes the Panic event of a handler that panicked with p.
func (rec *record) panicked(p any) {
	if !rec.recorded() {
		return
	}
	rec.mu.Lock()
	rec.event.ResponseStatus = &metav1.Status{
		Code:    http.StatusInternalServerError,
		Status:  metav1.StatusFailure,
		Reason:  metav1.StatusReasonInternalError,
		Message: fmt.Sprintf("APIServer panic'd: %v", p),
	}
	rec.mu.Unlock()
	rec.emit(auditv1.StagePanic, time.Now())
}

// complete writes the last event once the handler has returned:
// ResponseComplete (after a faked ResponseStarted for a long-running
// request that never answered), or, for a request refused by
// authentication, kube's single ResponseStarted event.
func (rec *record) complete(rw *responseWriter) {
	if !rec.recorded() {
		if rw.started && rw.code == http.StatusUnauthorized {
			rec.failedAuthentication(rw)
		}
		return
	}
	if !rw.started {
		rec.mu.Lock()
		rec.event.ResponseStatus = &metav1.Status{Code: http.StatusOK, Status: metav1.StatusSuccess, Message: "Connection closed early"}
		long := rec.longRunning
		rec.mu.Unlock()
		if long {
			rec.emit(auditv1.StageResponseStarted, time.Now())
		}
	}
	rec.logRequestBody()
	rec.logResponseBody(rw)
	rec.emit(auditv1.StageResponseComplete, time.Now())
}

// failedAuthentication records a request answered 401 by authentication
// as kube's failed-authentication filter does: the policy is evaluated
// with no user, and one ResponseStarted event is written whose status
// names the credentials tried (replaced, as in kube, by the Status the
// response carried).
func (rec *record) failedAuthentication(rw *responseWriter) {
	if recorded, _ := rec.begin(nil); !recorded {
		return
	}
	rec.mu.Lock()
	rec.event.ResponseStatus = &metav1.Status{Message: authMethods(rec.req)}
	rec.mu.Unlock()
	rec.logResponseBody(rw)
	rec.setStatusCode(rw.code)
	rec.emit(auditv1.StageResponseStarted, rw.startedAt)
}
