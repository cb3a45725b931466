package serviceaccount

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"

	"github.com/raftapi/raftapi/api/audit"
	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/api/resource"
)

// defaultExpirationSeconds is authentication/v1's default of a
// TokenRequest's spec.expirationSeconds.
const defaultExpirationSeconds = 3600

// tokenRequestKind is the kind of TokenRequest objects.
var tokenRequestKind = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// TokenRequestFunc returns the create of the token subresource of
// serviceaccounts (POST .../serviceaccounts/NAME/token), as
// kube-apiserver's TokenREST: the body is an authentication.k8s.io/v1
// TokenRequest; the answer the same with status.token, a token for the
// service account signed by t, and status.expirationTimestamp. g reads
// the service account and the object the token is bound to.
func TokenRequestFunc(t *Tokens, g Getter) resource.SubresourceCreateFunc {
	return func(ctx context.Context, ns, name string, obj runtime.Object) (runtime.Object, error) {
		req, ok := obj.(*authenticationv1.TokenRequest)
		if !ok {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenRequest: %T", obj))
		}
		return t.createToken(ctx, g, ns, name, req.DeepCopy())
	}
}

// createToken follows kube's TokenREST.Create step by step.
func (t *Tokens) createToken(ctx context.Context, g Getter, ns, name string, req *authenticationv1.TokenRequest) (runtime.Object, error) {
	if err := matchesURL(req, ns, name); err != nil {
		return nil, err
	}
	sa, err := g.ServiceAccount(ctx, ns, name, false)
	if err != nil {
		return nil, err
	}
	if req.UID != "" && req.UID != sa.UID {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: tokenRequestKind.Group, Resource: tokenRequestKind.Kind}, name,
			fmt.Errorf("the UID in the token request (%s) does not match the UID of the service account (%s)", req.UID, sa.UID))
	}
	now := t.cfg.Now()
	t.complete(req, sa, now)
	if errs := validateTokenRequest(req); len(errs) != 0 {
		return nil, apierrors.NewInvalid(tokenRequestKind.GroupKind(), "", errs)
	}
	secret, err := boundSecret(ctx, g, ns, name, req.Spec.BoundObjectRef)
	if err != nil {
		return nil, err
	}
	if max := int64(t.cfg.MaxExpiration / time.Second); max > 0 && *req.Spec.ExpirationSeconds > max {
		request.AddWarning(ctx, fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", *req.Spec.ExpirationSeconds, max))
		req.Spec.ExpirationSeconds = &max
	}
	lifetime := time.Duration(*req.Spec.ExpirationSeconds) * time.Second
	public, private := claims(sa, secret, now, lifetime, req.Spec.Audiences)
	token, err := t.sign(public, private)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("failed to generate token: %v", err))
	}
	req.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(now.Add(lifetime))}
	audit.AddAnnotation(ctx, apiserverserviceaccount.IssuedCredentialIDAuditAnnotationKey, "JTI="+public.ID)
	return req, nil
}

// matchesURL refuses a body naming another service account or namespace
// than the URL.
func matchesURL(req *authenticationv1.TokenRequest, ns, name string) error {
	if req.Name != "" && req.Name != name {
		return apierrors.NewInvalid(tokenRequestKind.GroupKind(), name, field.ErrorList{
			field.Invalid(field.NewPath("metadata").Child("name"), req.Name, "must match the service account name if specified")})
	}
	if req.Namespace != "" && req.Namespace != ns {
		return apierrors.NewInvalid(tokenRequestKind.GroupKind(), name, field.ErrorList{
			field.Invalid(field.NewPath("metadata").Child("namespace"), req.Namespace, "must match the service account namespace if specified")})
	}
	return nil
}

// complete fills what the server sets: the API's audiences when none are
// asked for, the default lifetime, the service account's name, namespace
// and UID, the creation time; the status a client sent is dropped.
func (t *Tokens) complete(req *authenticationv1.TokenRequest, sa *corev1.ServiceAccount, now time.Time) {
	req.TypeMeta = metav1.TypeMeta{APIVersion: tokenRequestKind.GroupVersion().String(), Kind: tokenRequestKind.Kind}
	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = t.APIAudiences()
	}
	if req.Spec.ExpirationSeconds == nil {
		exp := int64(defaultExpirationSeconds)
		req.Spec.ExpirationSeconds = &exp
	}
	if req.Name == "" {
		req.Name = sa.Name
	}
	if req.Namespace == "" {
		req.Namespace = sa.Namespace
	}
	if req.UID == "" {
		req.UID = sa.UID
	}
	req.CreationTimestamp = metav1.NewTime(now)
	req.Status = authenticationv1.TokenRequestStatus{}
}

// boundSecret resolves a TokenRequest's boundObjectRef as kube does: a
// Secret of the namespace binds the token to it (its UID must match the
// reference's, when given); a Pod or a Node cannot exist here, so the
// reference is to a missing object; any other kind cannot be bound to.
func boundSecret(ctx context.Context, g Getter, ns, saName string, ref *authenticationv1.BoundObjectReference) (*corev1.Secret, error) {
	if ref == nil {
		return nil, nil
	}
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	switch {
	case gvk.Group == "" && gvk.Kind == "Pod":
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, ref.Name)
	case gvk.Group == "" && gvk.Kind == "Node":
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, ref.Name)
	case gvk.Group == "" && gvk.Kind == "Secret":
		secret, err := g.Secret(ctx, ns, ref.Name, false)
		if err != nil {
			return nil, err
		}
		if ref.UID != "" && ref.UID != secret.UID {
			return nil, apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, ref.Name,
				fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
		}
		return secret, nil
	case isWebhookRef(ref):
		return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s (feature gate %s is disabled)", gvk.String(), "APIServerWebhookAuthenticationToken"))
	}
	return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
}
