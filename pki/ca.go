package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// CA is a certificate authority this node holds the key of.
type CA struct {
	Cert    *x509.Certificate
	CertPEM []byte
	key     crypto.Signer
}

func newCA(der []byte, key crypto.Signer) (*CA, error) {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("pki: parse CA: %w", err)
	}
	return &CA{Cert: cert, CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), key: key}, nil
}

// Pool returns a pool holding only this CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// AdminUser and AdminGroup name the admin credential a node writes into its
// kubeconfig; system:masters is the group kube-apiserver treats as
// all-powerful.
const (
	AdminUser  = "system:admin"
	AdminGroup = "system:masters"
)

// LeafSpec describes a certificate to issue.
type LeafSpec struct {
	// CommonName and Organization are the subject: for a client
	// certificate the user name and groups, for a peer the node name and
	// PeerOrganization.
	CommonName   string
	Organization []string
	// DNSNames and IPs are the subject alternative names.
	DNSNames []string
	IPs      []net.IP
	// Server and Client select the extended key usages.
	Server, Client bool
	// Validity is how long the certificate is valid; default one year.
	Validity time.Duration
}

// Leaf is an issued certificate and its key, PEM encoded.
type Leaf struct {
	CertPEM, KeyPEM []byte
}

// TLS returns the certificate for a tls.Config, with the CA appended to
// the chain so that a peer can see which CA issued it.
func (l Leaf) TLS(ca *CA) (tls.Certificate, error) {
	return tls.X509KeyPair(append(append([]byte{}, l.CertPEM...), ca.CertPEM...), l.KeyPEM)
}

// Issue issues a new P-256 certificate for spec.
func (ca *CA) Issue(spec LeafSpec) (Leaf, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Leaf{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return Leaf{}, err
	}
	validity := spec.Validity
	if validity <= 0 {
		validity = 365 * 24 * time.Hour
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial.Add(serial, big.NewInt(1)),
		Subject:      pkix.Name{CommonName: spec.CommonName, Organization: spec.Organization},
		DNSNames:     spec.DNSNames,
		IPAddresses:  spec.IPs,
		// Clocks differ between nodes and clients.
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	if spec.Server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if spec.Client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		return Leaf{}, fmt.Errorf("pki: issue %q: %w", spec.CommonName, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return Leaf{}, err
	}
	return Leaf{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}
