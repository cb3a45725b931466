package cluster

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// staticTokens are the bearer tokens of --token-auth-file, each naming its
// user.
type staticTokens map[string]User

// loadTokenFile reads kube-apiserver's --token-auth-file: CSV records of
// token, user name, uid and optionally one field of comma-separated groups
// (quoted), as kube's tokenfile authenticator reads them, its messages
// included: fewer than three columns is an error, an empty token is
// skipped and a repeated one replaces the first, both with a warning.
func loadTokenFile(path string, log *slog.Logger) (staticTokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cluster: --token-auth-file: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	tokens := staticTokens{}
	for n := 1; ; n++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return tokens, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cluster: --token-auth-file: %w", err)
		}
		if len(rec) < 3 {
			return nil, fmt.Errorf("token file '%s' must have at least 3 columns (token, user name, user uid), found %d", path, len(rec))
		}
		if rec[0] == "" {
			log.Warn(fmt.Sprintf("empty token has been found in token file '%s', record number '%d'", path, n))
			continue
		}
		if _, dup := tokens[rec[0]]; dup {
			log.Warn(fmt.Sprintf("duplicate token has been found in token file '%s', record number '%d'", path, n))
		}
		u := User{Name: rec[1], UID: rec[2]}
		if len(rec) >= 4 {
			u.Groups = strings.Split(rec[3], ",")
		}
		tokens[rec[0]] = u
	}
}

// authenticate returns the user of token, with system:authenticated added
// as kube's authenticators do.
func (t staticTokens) authenticate(token string) (User, bool) {
	u, ok := t[token]
	if !ok {
		return User{}, false
	}
	u.Groups = append(append([]string(nil), u.Groups...), authenticated)
	return u, true
}
