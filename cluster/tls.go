package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"time"

	"github.com/raftapi/raftapi/pki"
)

// PeerOrganization is the organization of every peer certificate derived
// from the token; a certificate without it (an API client's, say) never
// passes as a peer.
const PeerOrganization = "raftapi:peers"

// peerSecurity is how a node proves itself to its peers and checks them.
type peerSecurity struct {
	tls *tls.Config
	// requireOrg, when set, must be among the organizations of every
	// peer certificate.
	requireOrg string
}

// derivedPeerSecurity issues this node a peer certificate from the peer
// CA the token derives.
func derivedPeerSecurity(cfg Config, auth *pki.Authority) (*peerSecurity, error) {
	dns, ips := hostSANs(cfg.PeerListen, cfg.PeerAdvertise)
	leaf, err := auth.PeerCA.Issue(pki.LeafSpec{CommonName: cfg.Name, Organization: []string{PeerOrganization},
		DNSNames: dns, IPs: ips, Server: true, Client: true})
	if err != nil {
		return nil, err
	}
	cert, err := leaf.TLS(auth.PeerCA)
	if err != nil {
		return nil, err
	}
	return &peerSecurity{tls: mutualTLS(cert, auth.PeerCA.Pool(), PeerOrganization), requireOrg: PeerOrganization}, nil
}

// byoPeer reports whether the peer certificates come from files.
func byoPeer(c Config) bool { return c.PeerCertFile != "" || c.PeerKeyFile != "" || c.PeerCAFile != "" }

// filePeerSecurity loads the peer certificate, key and CA from files.
func filePeerSecurity(c Config) (*peerSecurity, error) {
	if c.PeerCertFile == "" || c.PeerKeyFile == "" || c.PeerCAFile == "" {
		return nil, errors.New("cluster: peer TLS needs a certificate, a key and a CA")
	}
	cert, err := tls.LoadX509KeyPair(c.PeerCertFile, c.PeerKeyFile)
	if err != nil {
		return nil, fmt.Errorf("cluster: peer certificate: %w", err)
	}
	pool, err := loadPool(c.PeerCAFile)
	if err != nil {
		return nil, fmt.Errorf("cluster: peer CA: %w", err)
	}
	return &peerSecurity{tls: mutualTLS(cert, pool, "")}, nil
}

// mutualTLS is the peer configuration both ways: a node presents cert and
// accepts only certificates pool signed (with org among their
// organizations, when set), as a server and as a client.
func mutualTLS(cert tls.Certificate, pool *x509.CertPool, org string) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS12,
		// Peers are dialled by the address raft or gossip names; what is
		// checked is that the peer CA signed the certificate, not the
		// host name in it. The server's identity is then checked by
		// verifyPeer.
		InsecureSkipVerify:    true,
		VerifyPeerCertificate: verifyPeer(pool, org),
	}
}

// verifyPeer checks a peer's certificate chain against the pool, and its
// organization.
func verifyPeer(pool *x509.CertPool, org string) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errors.New("cluster: peer sent no certificate")
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, r := range raw {
			c, err := x509.ParseCertificate(r)
			if err != nil {
				return fmt.Errorf("cluster: peer certificate: %w", err)
			}
			certs[i] = c
		}
		if err := verifyChain(certs, pool, x509.ExtKeyUsageAny); err != nil {
			return err
		}
		if org != "" && !slices.Contains(certs[0].Subject.Organization, org) {
			return fmt.Errorf("cluster: certificate of %q is not a peer certificate", certs[0].Subject.CommonName)
		}
		return nil
	}
}

// identity completes the TLS handshake of an accepted peer connection and
// returns the node name its verified certificate carries.
func (p *peerSecurity) identity(conn net.Conn) (string, error) {
	tc, ok := conn.(*tls.Conn)
	if !ok {
		return "", errors.New("cluster: peer connection is not TLS")
	}
	// The peer mux has set the connection's handshake deadline.
	if err := tc.Handshake(); err != nil {
		return "", fmt.Errorf("TLS handshake: %w", err)
	}
	peers := tc.ConnectionState().PeerCertificates
	if len(peers) == 0 || peers[0].Subject.CommonName == "" {
		return "", errors.New("peer certificate names no node")
	}
	return peers[0].Subject.CommonName, nil
}

// dialer dials peers with TLS.
func (p *peerSecurity) dialer() func(string, time.Duration) (net.Conn, error) {
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, "tcp", addr, p.tls)
	}
}

func loadPool(file string) (*x509.CertPool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no certificate", file)
	}
	return pool, nil
}

// verifyChain verifies chain[0], helped by the intermediates after it,
// against roots for usage.
func verifyChain(chain []*x509.Certificate, roots *x509.CertPool, usage x509.ExtKeyUsage) error {
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	_, err := chain[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{usage}})
	return err
}
