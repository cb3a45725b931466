package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// peerTLS returns the mutual-TLS configuration of the peer address, or nil
// when no certificate is configured.
func (c Config) peerTLS() (*tls.Config, error) {
	if c.PeerCertFile == "" && c.PeerKeyFile == "" && c.PeerCAFile == "" {
		return nil, nil
	}
	if c.PeerCertFile == "" || c.PeerKeyFile == "" || c.PeerCAFile == "" {
		return nil, errors.New("cluster: peer TLS needs a certificate, a key and a CA")
	}
	cert, err := tls.LoadX509KeyPair(c.PeerCertFile, c.PeerKeyFile)
	if err != nil {
		return nil, fmt.Errorf("cluster: peer certificate: %w", err)
	}
	caPEM, err := os.ReadFile(c.PeerCAFile)
	if err != nil {
		return nil, fmt.Errorf("cluster: peer CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("cluster: peer CA %s holds no certificate", c.PeerCAFile)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS12,
		// Peers are dialled by address; what is checked is that the CA
		// signed the certificate, not the host name in it.
		InsecureSkipVerify:    true,
		VerifyPeerCertificate: verifyChain(pool),
	}, nil
}

// verifyChain checks a server certificate against the CA pool.
func verifyChain(pool *x509.CertPool) func([][]byte, [][]*x509.Certificate) error {
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
		inter := x509.NewCertPool()
		for _, c := range certs[1:] {
			inter.AddCert(c)
		}
		_, err := certs[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
		return err
	}
}

// tlsDialer dials peers with TLS.
func tlsDialer(cfg *tls.Config) func(string, time.Duration) (net.Conn, error) {
	return func(addr string, timeout time.Duration) (net.Conn, error) {
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, "tcp", addr, cfg)
	}
}

// tlsListener wraps the peer listener with TLS.
func tlsListener(ln net.Listener, cfg *tls.Config) net.Listener { return tls.NewListener(ln, cfg) }
