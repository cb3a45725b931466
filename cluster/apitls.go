package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/raftapi/raftapi/pki"
)

// apiSecurity is how the API port speaks TLS and whose client
// certificates it accepts.
type apiSecurity struct {
	// tls is nil when the API speaks plain HTTP (Config.InsecureHTTP).
	tls *tls.Config
	// admin, when set, is the CA that signed the serving certificate and
	// can issue the admin kubeconfig (nil with a certificate from a file).
	admin *pki.CA
	// clientCAs verify client certificates (the cluster CA and
	// --client-ca-file).
	clientCAs *x509.CertPool
	verified  verifyCache
	// nodeClient is how this node calls other nodes' APIs (their status
	// and members), authenticated as this node.
	nodeClient *http.Client
	// tokens are the bearer tokens of --token-auth-file (none without).
	tokens staticTokens
}

// verifyClient verifies a client's certificate chain against the client
// CAs, for client authentication, as kube's x509 authenticator.
func (s *apiSecurity) verifyClient(chain []*x509.Certificate) (*x509.Certificate, error) {
	err := s.verified.verify(chain, func() error { return verifyChain(chain, s.clientCAs, x509.ExtKeyUsageClientAuth) })
	return chain[0], err
}

// scheme is the API's URL scheme.
func (s *apiSecurity) scheme() string {
	if s.tls == nil {
		return "http"
	}
	return "https"
}

// newAPISecurity loads or issues the serving certificate and collects the
// client CAs: the cluster CA and --client-ca-file.
func newAPISecurity(cfg Config, auth *pki.Authority) (*apiSecurity, error) {
	if cfg.InsecureHTTP {
		return &apiSecurity{nodeClient: &http.Client{}}, checkInsecureListen(cfg)
	}
	clientCAs := auth.CA.Pool()
	if cfg.ClientCAFile != "" {
		b, err := os.ReadFile(cfg.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("cluster: --client-ca-file: %w", err)
		}
		if !clientCAs.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("cluster: --client-ca-file %s holds no certificate", cfg.ClientCAFile)
		}
	}
	sec := &apiSecurity{clientCAs: clientCAs}
	var cert tls.Certificate
	var err error
	if cfg.TokenAuthFile != "" {
		if sec.tokens, err = loadTokenFile(cfg.TokenAuthFile, cfg.Logger); err != nil {
			return nil, err
		}
	}
	switch {
	case cfg.TLSCertFile != "" || cfg.TLSKeyFile != "":
		if cfg.TLSCertFile == "" || cfg.TLSKeyFile == "" {
			return nil, fmt.Errorf("cluster: --tls-cert-file and --tls-private-key-file go together")
		}
		if cert, err = tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile); err != nil {
			return nil, fmt.Errorf("cluster: serving certificate: %w", err)
		}
	default:
		if cert, err = issueServing(cfg, auth.CA); err != nil {
			return nil, err
		}
		sec.admin = auth.CA
	}
	if sec.nodeClient, err = newNodeClient(cfg, auth.CA, sec.admin == nil); err != nil {
		return nil, err
	}
	sec.tls = &tls.Config{
		Certificates: []tls.Certificate{cert},
		// As kube-apiserver, the handshake asks for a certificate and
		// lists the client CAs, but verification is authentication's
		// job: a certificate no client CA signed gets a 401, not a
		// failed handshake.
		ClientCAs:  clientCAs,
		ClientAuth: tls.RequestClientCert,
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"},
	}
	return sec, nil
}

// NodeUser is the user a node's calls to other nodes' APIs authenticate
// as, in system:masters: a node holds the CA and may do anything anyway.
func NodeUser(name string) string { return "raftapi:node:" + name }

// newNodeClient returns the client of node-to-node API calls: it presents
// a client certificate of the cluster CA and verifies servers against the
// cluster CA, or, when serving certificates come from files (byo), also
// against the system roots and --client-ca-file.
func newNodeClient(cfg Config, ca *pki.CA, byo bool) (*http.Client, error) {
	leaf, err := ca.Issue(pki.LeafSpec{CommonName: NodeUser(cfg.Name), Organization: []string{pki.AdminGroup}, Client: true})
	if err != nil {
		return nil, err
	}
	cert, err := leaf.TLS(ca)
	if err != nil {
		return nil, err
	}
	roots := ca.Pool()
	if byo {
		if sys, err := x509.SystemCertPool(); err == nil {
			roots = sys
			roots.AddCert(ca.Cert)
		}
		if cfg.ClientCAFile != "" {
			if b, err := os.ReadFile(cfg.ClientCAFile); err == nil {
				roots.AppendCertsFromPEM(b)
			}
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: roots, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}

// kubernetesSANs are the names kube-apiserver's serving certificate carries
// for clients inside a cluster.
var kubernetesSANs = []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}

func issueServing(cfg Config, ca *pki.CA) (tls.Certificate, error) {
	dns, ips := hostSANs(append([]string{cfg.Listen}, cfg.TLSSANs...)...)
	dns = append(dns, kubernetesSANs...)
	leaf, err := ca.Issue(pki.LeafSpec{CommonName: cfg.Name, DNSNames: dns, IPs: ips, Server: true})
	if err != nil {
		return tls.Certificate{}, err
	}
	return leaf.TLS(ca)
}

// hostSANs returns the DNS names and IPs of the hosts of addrs (host:port
// or bare hosts), with localhost, the loopback addresses and the host
// name. An unspecified address (0.0.0.0, ::) stands for every address of
// every interface.
func hostSANs(addrs ...string) ([]string, []net.IP) {
	dns := []string{"localhost"}
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	if h, err := os.Hostname(); err == nil && h != "" {
		dns = append(dns, h)
	}
	for _, a := range addrs {
		if a == "" {
			continue
		}
		host := a
		if h, _, err := net.SplitHostPort(a); err == nil {
			host = h
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		switch {
		case ip == nil && host != "":
			dns = append(dns, host)
		case ip != nil && ip.IsUnspecified():
			ips = append(ips, interfaceIPs()...)
		case ip != nil:
			ips = append(ips, ip)
		}
	}
	return dedupe(dns), dedupeIPs(ips)
}

func interfaceIPs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			out = append(out, n.IP)
		}
	}
	return out
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func dedupeIPs(ips []net.IP) []net.IP {
	seen := map[string]bool{}
	var out []net.IP
	for _, ip := range ips {
		if k := ip.String(); !seen[k] {
			seen[k] = true
			out = append(out, ip)
		}
	}
	return out
}

// checkInsecureListen refuses plain HTTP on anything but a loopback
// address, unless InsecureHTTPAnyAddress says otherwise.
func checkInsecureListen(cfg Config) error {
	if cfg.InsecureHTTPAnyAddress {
		return nil
	}
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return fmt.Errorf("cluster: --listen: %w", err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("cluster: --insecure-http on %s would serve the API without TLS or authentication to the network; "+
		"listen on a loopback address, or add --insecure-http-allow-any-address if that is really meant", cfg.Listen)
}

// writeKubeconfig writes the admin kubeconfig for the API at addr, when
// the node issued its own serving certificate.
func (s *apiSecurity) writeKubeconfig(dataDir, addr string) (string, error) {
	if s.tls == nil || s.admin == nil {
		return "", nil
	}
	leaf, err := s.admin.Issue(pki.LeafSpec{CommonName: pki.AdminUser, Organization: []string{pki.AdminGroup}, Client: true})
	if err != nil {
		return "", err
	}
	kc, err := kubeconfig("https://"+clientAddr(addr), s.admin.CertPEM, leaf)
	if err != nil {
		return "", err
	}
	path := KubeconfigPath(dataDir)
	return path, writePrivate(path, kc)
}

// clientAddr is the address a local client dials for a listen address:
// an unspecified host becomes the loopback address.
func clientAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	// A wildcard listener ("0.0.0.0", which Go reports as "[::]") accepts
	// IPv4 loopback connections too.
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
