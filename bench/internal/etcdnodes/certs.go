package etcdnodes

import (
	"crypto/x509/pkix"

	"github.com/raftapi/raftapi/bench/internal/certs"
)

// TLSFiles are the PEM files of a run's CA and of the certificate every
// member serves and dials its peers with (and the benchmark's client
// presents): one certificate valid for both uses on loopback.
type TLSFiles struct {
	CA, Cert, Key string
}

// writeCerts makes a CA and a loopback certificate signed by it in dir.
func writeCerts(dir string) (TLSFiles, error) {
	ca, err := certs.NewCA(dir, "ca", "raftapi-bench etcd CA")
	if err != nil {
		return TLSFiles{}, err
	}
	p, err := ca.Issue(dir, "cert", pkix.Name{CommonName: "raftapi-bench"})
	if err != nil {
		return TLSFiles{}, err
	}
	return TLSFiles{CA: ca.Path, Cert: p.Cert, Key: p.Key}, nil
}
