package traffic

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

// TestOutcomeOfConnections sends creates over real connections that fail
// at each step: a write is failed only when it never had a connection
// (refused dial, failed or timed-out TLS handshake), and unknown once it
// may have been sent.
func TestOutcomeOfConnections(t *testing.T) {
	clientCert := selfSigned(t)
	cases := []struct {
		name    string
		server  func(t *testing.T, served *atomic.Int32) (url string, roots *x509.CertPool)
		want    history.Outcome
		serving bool // the handler ran
	}{
		{"created over mutual TLS", func(t *testing.T, served *atomic.Int32) (string, *x509.CertPool) {
			return tlsServer(t, clientCert, served, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusCreated)
				w.Write([]byte(`{"metadata":{"name":"a","resourceVersion":"3"},"data":{"v":"x"}}`))
			})
		}, history.OK, true},
		{"refused dial", func(t *testing.T, _ *atomic.Int32) (string, *x509.CertPool) {
			ln := listen(t)
			ln.Close()
			return "https://" + ln.Addr().String(), x509.NewCertPool()
		}, history.Failed, false},
		{"untrusted serving certificate", func(t *testing.T, served *atomic.Int32) (string, *x509.CertPool) {
			u, _ := tlsServer(t, clientCert, served, func(http.ResponseWriter, *http.Request) {})
			return u, x509.NewCertPool()
		}, history.Failed, false},
		{"no TLS handshake (a paused node)", func(t *testing.T, _ *atomic.Int32) (string, *x509.CertPool) {
			ln := listen(t)
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					t.Cleanup(func() { c.Close() })
				}
			}()
			return "https://" + ln.Addr().String(), x509.NewCertPool()
		}, history.Failed, false},
		{"connection closed after the request", func(t *testing.T, served *atomic.Int32) (string, *x509.CertPool) {
			return tlsServer(t, clientCert, served, func(w http.ResponseWriter, r *http.Request) {
				c, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					c.Close()
				}
			})
		}, history.Unknown, true},
		{"no answer in time", func(t *testing.T, served *atomic.Int32) (string, *x509.CertPool) {
			return tlsServer(t, clientCert, served, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body) // then the server notices the client hanging up
				<-r.Context().Done()
			})
		}, history.Unknown, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int32
			u, roots := tc.server(t, &served)
			c := NewClient(ClientConfig{Nodes: map[string]string{"n1": u}, Namespace: "ns", Timeout: 3 * time.Second,
				TLS: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{clientCert}}})
			op := c.Create(t.Context(), history.Op{Node: "n1", Kind: history.Create, Key: "a", Value: "x"})
			if op.Outcome != tc.want {
				t.Errorf("outcome %s (%s), want %s", op.Outcome, op.Error, tc.want)
			}
			if got := served.Load() > 0; got != tc.serving {
				t.Errorf("the handler ran: %v, want %v", got, tc.serving)
			}
		})
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// tlsServer serves h over TLS, requiring clientCert, counting the
// requests it serves; it returns its URL and the pool that trusts it.
func tlsServer(t *testing.T, clientCert tls.Certificate, served *atomic.Int32, h http.HandlerFunc) (string, *x509.CertPool) {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		h(w, r)
	}))
	clients := x509.NewCertPool()
	clients.AddCert(clientCert.Leaf)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes meant to fail
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	return srv.URL, roots
}

// selfSigned returns a self-signed client certificate.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "chaos", Organization: []string{"system:masters"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}
