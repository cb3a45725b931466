package serviceaccount

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// FuzzVerifyToken feeds arbitrary bearer tokens to the authenticator: it
// must never panic, and whatever it accepts must be the service account
// its key signed a token for.
func FuzzVerifyToken(f *testing.F) {
	fx := newFixture(f)
	fx.getter.addSA("ns1", "builder", "uid-1")
	valid := fx.mustIssue(f, "ns1", "builder", authenticationv1.TokenRequestSpec{})
	parts := strings.Split(valid, ".")
	for _, seed := range []string{
		valid,
		parts[0] + "." + parts[1] + ".",
		parts[0] + ".." + parts[2],
		"." + parts[1] + "." + parts[2],
		parts[0] + "." + parts[1] + "." + parts[2] + ".x",
		"eyJhbGciOiJub25lIn0." + parts[1] + ".",
		"eyJhbGciOiJIUzI1NiJ9." + parts[1] + "." + parts[2],
		`{"payload":"` + parts[1] + `","signatures":[]}`,
		"a.b.c", "", "....", "Bearer x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		u, _, ok, err := fx.auth.AuthenticateToken(context.Background(), token)
		if ok && (err != nil || u == nil || u.GetName() != "system:serviceaccount:ns1:builder" || u.GetUID() != "uid-1") {
			t.Fatalf("accepted %q as %v (err %v)", token, u, err)
		}
		if !ok && u != nil {
			t.Fatalf("refused %q but returned user %v", token, u)
		}
	})
}
