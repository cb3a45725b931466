package pki

import (
	"strings"
	"testing"
)

// FuzzParseToken: any --token string parses or is refused, never a
// panic; a parsed token prints as a string that parses to the same token.
func FuzzParseToken(f *testing.F) {
	f.Add("K10" + strings.Repeat("ab", 32) + "::server:secret")
	f.Add("K10::server:")
	f.Add("K10zz::server:x")
	f.Add("plain-secret-string")
	f.Add("  ")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := ParseToken(s)
		if err != nil {
			return
		}
		if tok.Secret == "" {
			t.Fatalf("%q parsed to an empty secret", s)
		}
		again, err := ParseToken(tok.String())
		if err != nil || again != tok {
			t.Fatalf("%q: %+v prints as %q, which parses to %+v (%v)", s, tok, tok.String(), again, err)
		}
	})
}
