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
// the cluster CA and presents a client certificate in system:masters, for
// the harness's own administration (status, leave, granting the
// workload's role). The workload authenticates with a bearer token of
// the nodes' --token-auth-file instead, as an ordinary user whose rights
// come from RBAC (see grantClient).
type credentials struct {
	token string
	tls   *tls.Config
	// clientToken is the workload's bearer token; clientTLS trusts the
	// cluster CA and presents no certificate.
	clientToken string
	clientTLS   *tls.Config
}

// The workload's user and group, as the token file names them.
const (
	clientUser  = "raftapi-chaos"
	clientGroup = "raftapi:chaos"
)

// adminUser is the user of the harness's client certificate.
const adminUser = "raftapi-chaos-admin"

// tokenFileName is the nodes' --token-auth-file, in the nodes directory.
const tokenFileName = "tokens.csv"

// newCredentials makes a random token for one run.
func newCredentials() (credentials, error) {
	token := pki.NewSecret()
	auth, err := pki.Derive(token)
	if err != nil {
		return credentials{}, fmt.Errorf("chaos: derive the cluster CA: %w", err)
	}
	leaf, err := auth.CA.Issue(pki.LeafSpec{CommonName: adminUser, Organization: []string{pki.AdminGroup}, Client: true})
	if err != nil {
		return credentials{}, fmt.Errorf("chaos: client certificate: %w", err)
	}
	cert, err := leaf.TLS(auth.CA)
	if err != nil {
		return credentials{}, fmt.Errorf("chaos: client certificate: %w", err)
	}
	return credentials{
		token:       token,
		tls:         &tls.Config{RootCAs: auth.CA.Pool(), Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		clientToken: pki.NewSecret(),
		clientTLS:   &tls.Config{RootCAs: auth.CA.Pool(), MinVersion: tls.VersionTLS12},
	}, nil
}

// save writes the token to dir/token, readable by its owner only: with
// it, the nodes' data directories can be started again by hand after the
// run (each also holds it, and an admin.kubeconfig, while it exists). It
// also writes the nodes' token file.
func (c credentials) save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(c.token+"\n"), 0o600); err != nil {
		return fmt.Errorf("chaos: save the token: %w", err)
	}
	line := fmt.Sprintf("%s,%s,%s,%q\n", c.clientToken, clientUser, clientUser, clientGroup)
	if err := os.WriteFile(tokenFile(dir), []byte(line), 0o600); err != nil {
		return fmt.Errorf("chaos: save the token file: %w", err)
	}
	return nil
}

// tokenFile is the path of the nodes' --token-auth-file.
func tokenFile(dir string) string { return filepath.Join(dir, tokenFileName) }
