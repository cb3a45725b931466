package serviceaccount

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-jose/go-jose/v4/jwt"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
)

// TokenAuthenticator authenticates bearer tokens. The node's
// authentication and TokenReview call it, concurrently.
//
// The audiences the caller will accept are in ctx
// (authenticator.WithAudiences); without them, the API's audiences. It
// returns:
//   - (nil, nil, false, nil) for a token it does not recognise (another
//     authenticator's, or no token at all);
//   - (nil, nil, false, err) for a token it recognises but refuses
//     (expired, bad signature, its service account deleted), err saying
//     why in kube-apiserver's words;
//   - (user, audiences, true, nil) for a valid token: the user, and the
//     audiences of the caller's that the token is good for.
type TokenAuthenticator interface {
	AuthenticateToken(ctx context.Context, token string) (user.Info, []string, bool, error)
}

// Authenticator verifies service-account tokens (see the package
// comment). It is safe for concurrent use.
type Authenticator struct {
	tokens *Tokens
	getter Getter
}

// NewAuthenticator returns the authenticator of the tokens t issues and
// verifies, checking their service accounts through g.
func NewAuthenticator(t *Tokens, g Getter) *Authenticator {
	return &Authenticator{tokens: t, getter: g}
}

var _ TokenAuthenticator = (*Authenticator)(nil)

// AuthenticateToken implements TokenAuthenticator, as kube-apiserver's
// service-account token authenticator: a token that is no compact JWT of
// an accepted issuer is not recognised; one that is must verify with a
// key, name an accepted issuer and one of the accepted audiences, be
// within its validity times and name a service account (and a bound
// secret) that still exists with the UID it carries.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (user.Info, []string, bool, error) {
	if !a.tokens.hasIssuer(token) {
		return nil, nil, false, nil
	}
	tok, err := jwt.ParseSigned(token, a.tokens.algs)
	if err != nil {
		return nil, nil, false, nil
	}
	public, private, err := a.tokens.verify(tok)
	if err != nil {
		return nil, nil, false, err
	}
	auds, err := a.tokens.audiences(ctx, public.Audience)
	if err != nil {
		return nil, nil, false, err
	}
	u, err := a.validate(ctx, public, private)
	if err != nil {
		return nil, nil, false, err
	}
	return u, auds, true, nil
}

// hasIssuer reports whether token is a compact JWT whose (not yet
// verified) issuer is accepted, as kube checks before parsing: a token
// of another issuer is left to the other authenticators.
func (t *Tokens) hasIssuer(token string) bool {
	if strings.HasPrefix(strings.TrimSpace(token), "{") {
		return false
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		// Not verified: only chooses the authenticator.
		Issuer string `json:"iss"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return false
	}
	return t.issuers[claims.Issuer]
}

// verify checks the token's signature with the key its kid header names
// (every key when it names none) and its issuer, and returns its claims.
func (t *Tokens) verify(tok *jwt.JSONWebToken) (*jwt.Claims, *privateClaims, error) {
	var kid string
	for _, h := range tok.Headers {
		if h.KeyID != "" {
			kid = h.KeyID
			break
		}
	}
	keys := t.keys
	if kid != "" {
		keys = t.byID[kid]
	}
	if len(keys) == 0 {
		return nil, nil, fmt.Errorf("invalid signature, no keys found")
	}
	var errs []error
	for _, k := range keys {
		public, private := &jwt.Claims{}, &privateClaims{}
		if err := tok.Claims(k.key, public, private); err != nil {
			errs = append(errs, err)
			continue
		}
		if !t.issuers[public.Issuer] {
			return nil, nil, fmt.Errorf("token issuer %q is invalid", public.Issuer)
		}
		return public, private, nil
	}
	return nil, nil, utilerrors.NewAggregate(errs)
}

// audiences returns the audiences of the caller's (in ctx, else the
// API's) that a token for tokenAuds is good for; a token without
// audiences is good for the API's. None is kube's error.
func (t *Tokens) audiences(ctx context.Context, tokenAuds jwt.Audience) ([]string, error) {
	implicit := authenticator.Audiences(t.cfg.APIAudiences)
	have := authenticator.Audiences(tokenAuds)
	if len(have) == 0 {
		have = implicit
	}
	want, ok := authenticator.AudiencesFrom(ctx)
	if !ok {
		want = implicit
	}
	auds := have.Intersect(want)
	if len(auds) == 0 && len(implicit) != 0 {
		return nil, fmt.Errorf("token audiences %q is invalid for the target audiences %q", have, want)
	}
	return auds, nil
}
