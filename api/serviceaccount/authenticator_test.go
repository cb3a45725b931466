package serviceaccount

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/authenticator"
)

func TestAuthenticateValidToken(t *testing.T) {
	f := newFixture(t)
	f.getter.addSA("ns1", "builder", "uid-1")
	token := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
	u, auds, ok, err := f.auth.AuthenticateToken(context.Background(), token)
	if !ok || err != nil {
		t.Fatalf("authenticate = %v, %v; want the service account", ok, err)
	}
	if u.GetName() != "system:serviceaccount:ns1:builder" || u.GetUID() != "uid-1" {
		t.Errorf("user = %s uid %s", u.GetName(), u.GetUID())
	}
	if !slices.Equal(u.GetGroups(), []string{"system:serviceaccounts", "system:serviceaccounts:ns1"}) {
		t.Errorf("groups = %v", u.GetGroups())
	}
	jti := decodeSegment(t, token, 1)["jti"].(string)
	if got := u.GetExtra()["authentication.kubernetes.io/credential-id"]; !slices.Equal(got, []string{"JTI=" + jti}) {
		t.Errorf("credential-id = %v, want [JTI=%s]", got, jti)
	}
	if !slices.Equal(auds, []string{testIssuer}) {
		t.Errorf("audiences = %v, want the API's", auds)
	}
}

// TestAuthenticateRefuses: each way a token goes bad, with kube's
// message (or, for a token that is not ours, no opinion at all).
func TestAuthenticateRefuses(t *testing.T) {
	other := newFixture(t) // another cluster: another key
	other.getter.addSA("ns1", "builder", "uid-1")
	otherIssuer := newFixture(t, func(c *Config) { c.Issuers = []string{"https://elsewhere.example"} })
	otherIssuer.getter.addSA("ns1", "builder", "uid-1")

	for _, tc := range []struct {
		name string
		// token returns the token to present to f, a fresh fixture
		// holding ns1/builder uid-1.
		token func(t *testing.T, f *fixture) string
		ctx   func(context.Context) context.Context
		want  string // "" : not recognised, no error
	}{
		{"not a JWT", func(*testing.T, *fixture) string { return "abcdef.ghijk" }, nil, ""},
		{"another issuer", func(t *testing.T, _ *fixture) string {
			return otherIssuer.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
		}, nil, ""},
		{"bad signature", func(t *testing.T, _ *fixture) string {
			return other.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
		}, nil, "invalid signature, no keys found"},
		{"tampered payload", func(t *testing.T, f *fixture) string {
			tok := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
			other := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr[int64](7200)})
			p := strings.Split(tok, ".")
			return p[0] + "." + strings.Split(other, ".")[1] + "." + p[2]
		}, nil, "error in cryptographic primitive"},
		{"expired", func(t *testing.T, f *fixture) string {
			tok := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr[int64](600)})
			f.clock.advance(600*time.Second + jwt.DefaultLeeway + time.Second)
			return tok
		}, nil, "service account token has expired"},
		{"not valid yet", func(t *testing.T, f *fixture) string {
			tok := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
			f.clock.advance(-jwt.DefaultLeeway - time.Second)
			return tok
		}, nil, "service account token is not valid yet"},
		{"audience not the API's", func(t *testing.T, f *fixture) string {
			return f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{Audiences: []string{"vault"}})
		}, nil, `token audiences ["vault"] is invalid for the target audiences ["` + testIssuer + `"]`},
		{"audience not asked for", func(t *testing.T, f *fixture) string {
			return f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
		}, func(ctx context.Context) context.Context {
			return authenticator.WithAudiences(ctx, authenticator.Audiences{"vault"})
		}, `token audiences ["` + testIssuer + `"] is invalid for the target audiences ["vault"]`},
		{"service account deleted", func(t *testing.T, f *fixture) string {
			tok := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
			f.getter.remove("serviceaccounts", "ns1", "builder")
			return tok
		}, nil, `serviceaccounts "builder" not found`},
		{"service account recreated", func(t *testing.T, f *fixture) string {
			tok := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
			f.getter.addSA("ns1", "builder", "uid-2")
			return tok
		}, nil, "service account UID (uid-2) does not match claim (uid-1)"},
		{"service account being deleted", func(t *testing.T, f *fixture) string {
			tok := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
			sa := f.getter.addSA("ns1", "builder", "uid-1")
			sa.DeletionTimestamp = &metav1.Time{Time: f.clock.Now().Add(-2 * jwt.DefaultLeeway)}
			return tok
		}, nil, "service account ns1/builder has been deleted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.getter.addSA("ns1", "builder", "uid-1")
			token := tc.token(t, f)
			ctx := context.Background()
			if tc.ctx != nil {
				ctx = tc.ctx(ctx)
			}
			u, _, ok, err := f.auth.AuthenticateToken(ctx, token)
			if ok || u != nil {
				t.Fatalf("authenticated as %v, want refused", u)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error %v, want the token left to other authenticators", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestAuthenticateWithAKeyFileKey: a token signed by a key given only
// for verification (--service-account-key-file), and by an old issuer
// still accepted, authenticates.
func TestAuthenticateWithAKeyFileKey(t *testing.T) {
	old := newFixture(t, func(c *Config) { c.Issuers = []string{"https://old.example"} })
	old.getter.addSA("ns1", "builder", "uid-1")
	token := old.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{Audiences: []string{testIssuer}})

	f := newFixture(t, func(c *Config) {
		c.Issuers = []string{testIssuer, "https://old.example"}
		c.APIAudiences = []string{testIssuer}
		c.VerificationKeys = append(c.VerificationKeys, old.tokens.cfg.SigningKey)
	})
	f.getter.addSA("ns1", "builder", "uid-1")
	u, _, ok, err := f.auth.AuthenticateToken(context.Background(), token)
	if !ok || err != nil || u.GetName() != "system:serviceaccount:ns1:builder" {
		t.Fatalf("authenticate = %v, %v, %v", u, ok, err)
	}
}

// TestAuthenticateReadsTheMostRecentStateOnAMiss: a node that has not
// applied the service account (or its new incarnation) yet asks for the
// most recent state before refusing.
func TestAuthenticateReadsTheMostRecentStateOnAMiss(t *testing.T) {
	f := newFixture(t)
	f.getter.addSA("ns1", "builder", "uid-1")
	token := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
	f.getter.mu.Lock()
	delete(f.getter.local, "serviceaccounts/ns1/builder")
	before := f.getter.fresh
	f.getter.mu.Unlock()
	if _, _, ok, err := f.auth.AuthenticateToken(context.Background(), token); !ok || err != nil {
		t.Fatalf("authenticate on a lagging node = %v, %v", ok, err)
	}
	if f.getter.fresh != before+1 {
		t.Fatalf("fresh reads = %d, want one more than %d", f.getter.fresh, before)
	}
	f.getter.addSA("ns1", "builder", "uid-1")
	before = f.getter.fresh
	if _, _, ok, _ := f.auth.AuthenticateToken(context.Background(), token); !ok || f.getter.fresh != before {
		t.Fatalf("authenticate on an up-to-date node: ok %v, %d fresh reads, want none", ok, f.getter.fresh-before)
	}
}

// TestAuthenticateRefusesBindingsToMissingObjects: kube-apiserver tokens
// bound to pods or nodes (which do not exist here) are invalidated.
func TestAuthenticateRefusesBindingsToMissingObjects(t *testing.T) {
	f := newFixture(t)
	f.getter.addSA("ns1", "builder", "uid-1")
	signer, err := newSigner(f.tokens.cfg.SigningKey)
	if err != nil {
		t.Fatal(err)
	}
	now := f.clock.Now()
	pub := &publicClaims{Issuer: testIssuer, Subject: "system:serviceaccount:ns1:builder", Audience: []string{testIssuer},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
	priv := &privateClaims{Kubernetes: kubernetesClaims{Namespace: "ns1", Svcacct: ref{Name: "builder", UID: "uid-1"}, Pod: &ref{Name: "p", UID: "u"}}}
	token, err := jwt.Signed(signer).Claims(priv).Claims(pub).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := f.auth.AuthenticateToken(context.Background(), token); ok || err == nil || err.Error() != "service account token has been invalidated" {
		t.Fatalf("pod-bound token: ok %v err %v, want invalidated", ok, err)
	}
}
