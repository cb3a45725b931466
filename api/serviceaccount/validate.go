package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
)

// errInvalidated is kube's answer for a token whose bound object is gone.
var errInvalidated = errors.New("service account token has been invalidated")

// validate checks a verified token's times and the objects it names, as
// kube's service-account token validator, and returns its user.
func (a *Authenticator) validate(ctx context.Context, public *jwt.Claims, private *privateClaims) (user.Info, error) {
	now := a.tokens.cfg.Now()
	if err := validateTimes(public, now); err != nil {
		return nil, err
	}
	// Objects deleted before now minus the leeway no longer vouch.
	deletedBefore := now.Add(-jwt.DefaultLeeway)
	k := private.Kubernetes
	sa, err := a.serviceAccount(ctx, k.Namespace, k.Svcacct.Name, k.Svcacct.UID)
	if err != nil {
		return nil, err
	}
	if string(sa.UID) != k.Svcacct.UID {
		return nil, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.UID, k.Svcacct.UID)
	}
	if deleted(sa.DeletionTimestamp, deletedBefore) {
		return nil, fmt.Errorf("service account %s/%s has been deleted", k.Namespace, k.Svcacct.Name)
	}
	if err := a.validateBinding(ctx, k, deletedBefore); err != nil {
		return nil, err
	}
	info := &apiserverserviceaccount.ServiceAccountInfo{Namespace: k.Namespace, Name: k.Svcacct.Name, UID: k.Svcacct.UID}
	if public.ID != "" {
		info.CredentialID = "JTI=" + public.ID
	}
	return info.UserInfo(), nil
}

// validateTimes checks expiry, not-before and issue time with go-jose's
// default leeway, in kube's words.
func validateTimes(public *jwt.Claims, now time.Time) error {
	switch err := public.Validate(jwt.Expected{Time: now}); {
	case err == nil:
		return nil
	case errors.Is(err, jwt.ErrExpired):
		return errors.New("service account token has expired")
	case errors.Is(err, jwt.ErrNotValidYet):
		return errors.New("service account token is not valid yet")
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return errors.New("service account token is issued in the future")
	default:
		return errors.New("service account token claims could not be validated due to unexpected validation error")
	}
}

// serviceAccount reads the service account a token names: from this
// node's state first, then, when it is missing or has another UID there
// (this node has not applied its creation yet), from the most recent
// state.
func (a *Authenticator) serviceAccount(ctx context.Context, ns, name, uid string) (*corev1.ServiceAccount, error) {
	sa, err := a.getter.ServiceAccount(ctx, ns, name, true)
	if (err == nil && string(sa.UID) == uid) || (err != nil && !apierrors.IsNotFound(err)) {
		return sa, err
	}
	return a.getter.ServiceAccount(ctx, ns, name, false)
}

// validateBinding checks that the object a token is bound to still
// exists with the UID it names. There are no pods or nodes here: tokens
// bound to them (issued by a kube-apiserver sharing a key) are refused.
func (a *Authenticator) validateBinding(ctx context.Context, k kubernetesClaims, deletedBefore time.Time) error {
	switch {
	case k.Secret != nil:
		secret, err := a.getter.Secret(ctx, k.Namespace, k.Secret.Name, true)
		if err != nil || string(secret.UID) != k.Secret.UID {
			// This node may not have applied the secret yet.
			secret, err = a.getter.Secret(ctx, k.Namespace, k.Secret.Name, false)
		}
		if err != nil {
			return errInvalidated
		}
		if string(secret.UID) != k.Secret.UID {
			return fmt.Errorf("secret UID (%s) does not match service account secret ref claim (%s)", secret.UID, k.Secret.UID)
		}
		if deleted(secret.DeletionTimestamp, deletedBefore) {
			return errInvalidated
		}
	case k.Pod != nil, k.Node != nil:
		return errInvalidated
	}
	return nil
}

func deleted(ts *metav1.Time, before time.Time) bool {
	return ts != nil && ts.Time.Before(before)
}
