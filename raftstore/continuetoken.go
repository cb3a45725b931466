package raftstore

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// continueToken is the decoded form of ListOptions.Continue: the revision
// every page of the list is served at and the last key already returned.
type continueToken struct {
	Version string `json:"v"`
	Rev     uint64 `json:"rv"`
	Start   string `json:"start"`
}

const tokenVersion = "raftapi/1"

func encodeContinue(rev uint64, lastKey string) string {
	b, _ := json.Marshal(continueToken{Version: tokenVersion, Rev: rev, Start: lastKey})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue parses a token for a list of prefix. A token that does not
// decode, is of another version or points outside the prefix is a bad
// request.
func decodeContinue(token, prefix string) (continueToken, error) {
	var t continueToken
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return t, newError(ErrCodeBadRequest, "", "continue token is not valid base64: %v", err)
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, newError(ErrCodeBadRequest, "", "continue token is not valid: %v", err)
	}
	if t.Version != tokenVersion || t.Rev == 0 {
		return t, newError(ErrCodeBadRequest, "", "continue token is not valid: unknown version or revision")
	}
	if !strings.HasPrefix(t.Start, prefix) {
		return t, newError(ErrCodeBadRequest, "", "continue token does not belong to this list")
	}
	return t, nil
}

// ContinueRevision returns the revision a continue token was issued at, for
// callers that must reject it together with an explicit revision.
func ContinueRevision(token, prefix string) (uint64, error) {
	t, err := decodeContinue(token, prefix)
	return t.Rev, err
}

// EncodeContinue returns the continue token of a list served at rev whose
// last returned key is lastKey. Other implementations of the store's list
// semantics (api/registry/registrytest) issue the same tokens with it.
func EncodeContinue(rev uint64, lastKey string) string { return encodeContinue(rev, lastKey) }

// DecodeContinue returns the revision and the last returned key of a
// continue token for a list of prefix; a malformed token, or one of
// another list, is an ErrCodeBadRequest error.
func DecodeContinue(token, prefix string) (rev uint64, lastKey string, err error) {
	t, err := decodeContinue(token, prefix)
	return t.Rev, t.Start, err
}
