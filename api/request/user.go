package request

import (
	"context"

	"k8s.io/apiserver/pkg/authentication/user"
)

type userKey struct{}

// WithUser returns ctx carrying u, the request's user after
// authentication and impersonation.
func WithUser(ctx context.Context, u user.Info) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user WithUser stored in ctx; ok is false for a
// context without one (a controller's own call, a test).
func UserFrom(ctx context.Context) (u user.Info, ok bool) {
	u, ok = ctx.Value(userKey{}).(user.Info)
	return u, ok
}
