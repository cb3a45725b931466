package raftstore

import (
	"strings"
	"testing"
)

// FuzzDecodeContinue: any client-sent continue token decodes or is a bad
// request, never a panic; one that decodes names a key of the list's
// prefix and a revision, and encoding that back decodes to the same.
func FuzzDecodeContinue(f *testing.F) {
	f.Add(encodeContinue(7, "/registry/configmaps/default/a"), "/registry/configmaps/")
	f.Add(encodeContinue(1, "/x"), "/y/")
	f.Add("", "/")
	f.Add("not base64!", "/")
	f.Add("eyJ2IjoicmFmdGFwaS8xIiwicnYiOjAsInN0YXJ0IjoiLyJ9", "/")
	f.Fuzz(func(t *testing.T, token, prefix string) {
		rev, key, err := DecodeContinue(token, prefix)
		if err != nil {
			if !IsBadRequest(err) {
				t.Fatalf("%q: %v is not a bad request", token, err)
			}
			return
		}
		if rev == 0 || !strings.HasPrefix(key, prefix) {
			t.Fatalf("%q decoded to revision %d, key %q outside %q", token, rev, key, prefix)
		}
		rev2, key2, err := DecodeContinue(EncodeContinue(rev, key), prefix)
		if err != nil || rev2 != rev || key2 != key {
			t.Fatalf("round trip of (%d, %q): (%d, %q, %v)", rev, key, rev2, key2, err)
		}
	})
}
