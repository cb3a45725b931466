// Package audit records the requests a server serves as kube-apiserver's
// auditing does (--audit-policy-file, --audit-log-*): an audit.k8s.io/v1
// Policy decides per request a level (None, Metadata, Request,
// RequestResponse) and the stages left out, and the log backend writes
// one audit.k8s.io/v1 Event per stage as a JSON line (or kube's legacy
// text line) to a file rotated by size, count and age, or to standard
// output.
//
// # Place in the serving chain
//
// Handler sits after panic recovery and before authentication, as
// kube's WithAuditInit: every request gets an audit ID (the client's
// Audit-ID header, else a UUID), echoed in the Audit-Id response
// header. The policy needs the user, so the serving chain reports what
// it learns through hooks that take the request's context:
//
//   - Authenticated(ctx, user), once authentication has identified the
//     user and before impersonation — where kube's WithAudit runs —
//     evaluates the policy and writes RequestReceived;
//   - LogImpersonatedUser(ctx, user) once impersonation is allowed;
//   - LogAuthorizationDecision(ctx, decision, reason, err) from the
//     authorization step (the authorization.k8s.io/decision and
//     authorization.k8s.io/reason annotations), AddAnnotation for any
//     other annotation.
//
// A request that never reaches Authenticated and is answered 401 is
// recorded as kube records a failed authentication: the policy is
// evaluated with no user and one ResponseStarted event is written. So
// 401s and 403s are audited, like everything else the policy selects.
//
// # Events
//
// RequestReceived is written when the policy is evaluated;
// ResponseStarted only for long-running requests (watches), when the
// response starts; ResponseComplete when the handler returns; Panic when
// it panics. The request attributes (verb, group, version, resource,
// subresource, namespace, name, path) come from Config.Attributes, the
// same the authorizer sees. The response status is the HTTP code, and
// for a Status body (errors, deletions) its status, reason, message and
// details. From level Request the request body is recorded, from
// RequestResponse the response object (not for watches); JSON as sent,
// YAML converted to JSON, Kubernetes Protobuf decoded (Config.Protobuf).
// At level Metadata the body of a create or update is still read for
// the objectRef's name, uid and resourceVersion, as kube does.
//
// # Writing
//
// Events are encoded on the request's goroutine and written in groups of
// whole lines (group commit, see lineWriter). In kube's default blocking
// mode a request returns once its event is written, but concurrent
// requests share a write; blocking-strict also fails a request whose
// RequestReceived event cannot be written; batch mode queues events for
// a writer goroutine without waiting and drops those that do not fit in
// --audit-log-batch-buffer-size. Close writes what is queued and closes
// the file.
package audit
