package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/raftapi/raftapi/pki"
)

// Files in the data directory.
const (
	tokenFile      = "token"
	kubeconfigFile = "admin.kubeconfig"
)

// TokenPath is where a node keeps its cluster's full join token.
func TokenPath(dataDir string) string { return filepath.Join(dataDir, tokenFile) }

// KubeconfigPath is where a node writes the admin kubeconfig.
func KubeconfigPath(dataDir string) string { return filepath.Join(dataDir, kubeconfigFile) }

// errNeedToken refuses to start a node of several without a token: each
// would derive CAs of its own and none could talk to the others.
var errNeedToken = errors.New("cluster: a cluster of several nodes needs --token, the same on every node " +
	"(any secret string; `raftapi token generate` prints a strong one): every node derives the cluster's CAs from it")

// resolveToken returns the cluster's token and its authority: the
// configured token, checked against the one the data directory holds, or
// the stored one, or for a new single-node cluster a new one. It stores the
// full token in the data directory.
func resolveToken(cfg Config) (pki.Token, *pki.Authority, error) {
	stored, err := readToken(cfg.DataDir)
	if err != nil {
		return pki.Token{}, nil, err
	}
	tok := stored
	switch {
	case cfg.Token != "":
		if tok, err = pki.ParseToken(cfg.Token); err != nil {
			return pki.Token{}, nil, err
		}
		if stored.Secret != "" && !tok.SameSecret(stored) {
			return pki.Token{}, nil, fmt.Errorf("cluster: --token differs from the token of the cluster in %s (%s)", cfg.DataDir, TokenPath(cfg.DataDir))
		}
	case stored.Secret != "":
	case cfg.multiNode():
		return pki.Token{}, nil, errNeedToken
	default:
		tok = pki.Token{Secret: pki.NewSecret()}
	}
	auth, err := pki.Derive(tok.Secret)
	if err != nil {
		return pki.Token{}, nil, err
	}
	if err := auth.Check(tok); err != nil {
		return pki.Token{}, nil, err
	}
	full := auth.Token(tok.Secret)
	if stored.String() != full.String() {
		if err := writePrivate(TokenPath(cfg.DataDir), []byte(full.String()+"\n")); err != nil {
			return pki.Token{}, nil, err
		}
	}
	return full, auth, nil
}

// ReadToken returns the token stored in a node's data directory.
func ReadToken(dataDir string) (string, error) {
	tok, err := readToken(dataDir)
	if err == nil && tok.Secret == "" {
		err = fmt.Errorf("cluster: %s holds no token", dataDir)
	}
	return tok.String(), err
}

func readToken(dataDir string) (pki.Token, error) {
	b, err := os.ReadFile(TokenPath(dataDir))
	if errors.Is(err, os.ErrNotExist) {
		return pki.Token{}, nil
	}
	if err != nil {
		return pki.Token{}, fmt.Errorf("cluster: read token: %w", err)
	}
	return pki.ParseToken(strings.TrimSpace(string(b)))
}

// writePrivate writes a file only its owner may read, atomically.
func writePrivate(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("cluster: write %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cluster: write %s: %w", path, err)
	}
	return nil
}

// privateDataDir creates the data directory, or restricts an existing one,
// so that only the owner reaches anything in it.
func privateDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cluster: data dir: %w", err)
	}
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o600)
		if d.IsDir() {
			mode = 0o700
		}
		if d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		if err := os.Chmod(p, mode); err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return fmt.Errorf("cluster: data dir: %s belongs to another user (this node runs as uid %d) and could not be made private: "+
					"give a --data-dir this user owns or may create, e.g. a subdirectory of a mounted volume", p, os.Getuid())
			}
			return fmt.Errorf("cluster: data dir: %w", err)
		}
		return nil
	})
}
