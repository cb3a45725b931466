package chaos

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"

	"github.com/raftapi/raftapi/pki"
)

// credentials are a run's cluster token and what the harness derives from
// it, as anyone holding the token can: a TLS configuration that trusts
// the cluster CA and presents a client certificate in system:masters.
type credentials struct {
	token string
	tls   *tls.Config
}

// clientUser is the user the harness's requests authenticate as.
const clientUser = "raftapi-chaos"

// newCredentials makes a random token for one run.
func newCredentials() (credentials, error) {
	token := pki.NewSecret()
	auth, err := pki.Derive(token)
	if err != nil {
		return credentials{}, fmt.Errorf("chaos: derive the cluster CA: %w", err)
	}
	leaf, err := auth.CA.Issue(pki.LeafSpec{CommonName: clientUser, Organization: []string{pki.AdminGroup}, Client: true})
	if err != nil {
		return credentials{}, fmt.Errorf("chaos: client certificate: %w", err)
	}
	cert, err := leaf.TLS(auth.CA)
	if err != nil {
		return credentials{}, fmt.Errorf("chaos: client certificate: %w", err)
	}
	return credentials{token: token, tls: &tls.Config{RootCAs: auth.CA.Pool(), Certificates: []tls.Certificate{cert},
		MinVersion: tls.VersionTLS12}}, nil
}

// save writes the token to dir/token, readable by its owner only: with
// it, the nodes' data directories can be started again by hand after the
// run (each also holds it, and an admin.kubeconfig, while it exists).
func (c credentials) save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(c.token+"\n"), 0o600); err != nil {
		return fmt.Errorf("chaos: save the token: %w", err)
	}
	return nil
}
