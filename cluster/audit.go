package cluster

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/audit"
	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// newAuditor sets up the node's auditing from --audit-policy-file and
// --audit-log-*: the policy matches the attributes the authorizer sees,
// and Protobuf bodies of the built-in resources are recorded as JSON.
func newAuditor(cfg Config) (*audit.Auditor, error) {
	resources := resource.NewRegistry(append(builtin.Resources(), apiextensions.CRDResource())...)
	return audit.New(audit.Config{
		Options:    cfg.Audit,
		Attributes: auditAttributes,
		Protobuf:   codec.NewCodecs(resources).Proto,
		Logger:     cfg.Logger.With("component", "audit"),
	})
}

// validateAudit checks the audit flags and policy file before the node
// opens anything, as kube-apiserver refuses to start on either (New
// reads the policy again when the node starts serving).
func validateAudit(o audit.Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.PolicyFile == "" {
		return nil
	}
	_, err := audit.LoadPolicy(o.PolicyFile)
	return err
}

// auditAttributes are r's authorization attributes for user u.
func auditAttributes(r *http.Request, u user.Info) authorizer.Attributes {
	return requestAttributes(u, r)
}

// impersonateAudited is impersonate with the audit around it, where
// kube-apiserver's audit filter sits (between authentication and
// impersonation): the request's event gets the authenticated user u
// (and RequestReceived is written), then, once impersonation is
// allowed, the impersonated user. In blocking-strict audit mode, a
// RequestReceived event that cannot be written fails the request.
func (n *Node) impersonateAudited(u User, r *http.Request) (User, *apierrors.StatusError) {
	ctx := r.Context()
	if err := audit.Authenticated(ctx, u.info()); err != nil {
		return u, apierrors.NewInternalError(err)
	}
	impersonating := r.Header.Get(impersonateUser) != ""
	as, err := n.impersonate(u, r)
	if err == nil && impersonating {
		audit.LogImpersonatedUser(ctx, as.info())
	}
	return as, err
}
