package audit

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// HeaderAuditID is the request and response header carrying a request's
// audit ID (kube's Audit-ID; Go writes it Audit-Id).
const HeaderAuditID = "Audit-ID"

// Config wires an Auditor into a server.
type Config struct {
	// Options are the audit flags.
	Options
	// Attributes are the authorization attributes of r made by user u
	// (nil when authentication failed): the verb, resource and path the
	// policy matches and the events report. Nil treats every request as
	// a non-resource request with its lower-cased method as verb.
	Attributes func(r *http.Request, u user.Info) authorizer.Attributes
	// Protobuf decodes a Kubernetes Protobuf body (with its envelope),
	// so that Protobuf requests and responses are recorded as JSON; nil
	// leaves them out of the events.
	Protobuf runtime.Decoder
	// Logger receives the auditor's own problems (failed writes, dropped
	// events); nil discards them.
	Logger *slog.Logger
}

// Auditor records the requests a server serves, as kube-apiserver's
// audit filters and log backend do. A nil or disabled Auditor still
// gives every request an audit ID (kube-apiserver always does).
type Auditor struct {
	policy     *Policy
	backend    *backend
	attributes func(*http.Request, user.Info) authorizer.Attributes
	protobuf   runtime.Decoder
	log        *slog.Logger
}

// New loads the policy and opens the log as cfg says. Auditing is on
// only with both a policy file and a log path, as in kube-apiserver; the
// options and the policy are checked in any case, and an invalid one is
// an error with kube's message.
func New(cfg Config) (*Auditor, error) {
	opts := cfg.Options.withDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	a := &Auditor{attributes: cfg.Attributes, protobuf: cfg.Protobuf, log: cfg.Logger}
	if a.attributes == nil {
		a.attributes = nonResourceAttributes
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if opts.PolicyFile == "" {
		if opts.logEnabled() {
			a.log.Info("no audit policy file provided, no events will be recorded for log backend")
		}
		return a, nil
	}
	p, err := LoadPolicy(opts.PolicyFile)
	if err != nil {
		return nil, err
	}
	if !opts.logEnabled() {
		return a, nil
	}
	b, err := openBackend(opts, a.log)
	if err != nil {
		return nil, err
	}
	a.policy, a.backend = p, b
	return a, nil
}

// nonResourceAttributes is the fallback of Config.Attributes.
func nonResourceAttributes(r *http.Request, u user.Info) authorizer.Attributes {
	return authorizer.AttributesRecord{User: u, Verb: strings.ToLower(r.Method), Path: r.URL.Path}
}

// Enabled reports whether requests are recorded.
func (a *Auditor) Enabled() bool { return a != nil && a.backend != nil }

// Close writes the events still queued and closes the log. Requests
// served after Close are not recorded.
func (a *Auditor) Close() error {
	if !a.Enabled() {
		return nil
	}
	return a.backend.close()
}

// Handler is the audit filter, placed after panic recovery and before
// authentication: it gives the request its audit ID (the Audit-ID
// header's, else a new UUID), echoes it in the Audit-Id response header,
// and, when auditing is on, records the request. Authentication then
// calls Authenticated, which evaluates the policy and writes the
// RequestReceived event; a request that never gets there and is answered
// 401 is recorded as kube records a failed authentication (one
// ResponseStarted event with no user). The response is written through
// to next's writer; ResponseStarted is written when a long-running
// request (a watch) starts its response, ResponseComplete when the
// handler returns, Panic (before re-panicking) when it panics.
func (a *Auditor) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &record{a: a, received: time.Now(), id: r.Header.Get(HeaderAuditID)}
		if rec.id == "" {
			rec.id = uuid.NewString()
		}
		if w.Header().Get(HeaderAuditID) == "" {
			w.Header().Set(HeaderAuditID, rec.id)
		}
		r = r.WithContext(context.WithValue(r.Context(), recordKey{}, rec))
		rec.req = r
		if !a.Enabled() {
			next.ServeHTTP(w, r)
			return
		}
		a.serve(rec, next, w, r)
	})
}

// serve runs next for a recorded request.
func (a *Auditor) serve(rec *record, next http.Handler, w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		rec.body = &bodyTee{ReadCloser: r.Body, rec: rec}
		r.Body = rec.body
	}
	rw := &responseWriter{ResponseWriter: w, rec: rec}
	defer func() {
		if p := recover(); p != nil {
			rec.panicked(p)
			panic(p)
		}
		rec.complete(rw)
	}()
	next.ServeHTTP(rw, r)
}
