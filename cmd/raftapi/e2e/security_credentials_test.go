package e2e

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
)

// TestSecurityForeignCredentials runs two single-node clusters, each with
// its own generated token, and shows that one's credentials are worth
// nothing to the other: a client holding cluster A's admin kubeconfig
// refuses cluster B's server (TLS verification fails), and B refuses
// client certificates that A's CA, or any other CA, signed.
func TestSecurityForeignCredentials(t *testing.T) {
	a, b := secNewNode(t, "a", false), secNewNode(t, "b", false)
	a.start(t)
	b.start(t)
	secWaitReady(t, a)
	secWaitReady(t, b)
	aCfg, bCfg := a.config(t), b.config(t)
	bURL := "https://" + b.api + "/api/v1/namespaces"

	t.Run("control", func(t *testing.T) {
		secMustKubectl(t, b.kubeconfig(t), "get", "namespaces")
		if r := secMustDo(t, secHTTP(t, bCfg), http.MethodGet, bURL); r.code != http.StatusOK {
			t.Fatalf("B's own admin: HTTP %d: %s", r.code, r.body)
		}
	})
	t.Run("wrong-cluster-kubeconfig", func(t *testing.T) {
		out, err := secKubectl(a.kubeconfig(t), "--server", "https://"+b.api, "get", "namespaces")
		if err == nil {
			t.Fatalf("kubectl with A's kubeconfig was served by B:\n%s", out)
		}
		if !strings.Contains(out, "x509") {
			t.Errorf("kubectl failed, but not verifying the server: %s", out)
		}
		t.Logf("kubectl: %s", strings.TrimSpace(out))
	})
	t.Run("client-certificate-of-other-cluster", func(t *testing.T) {
		cert, err := tls.X509KeyPair(aCfg.CertData, aCfg.KeyData)
		if err != nil {
			t.Fatal(err)
		}
		secCheckRefused(t, secCertClient(secCAPool(t, bCfg), &cert), bURL)
	})
	t.Run("client-certificate-of-other-ca", func(t *testing.T) {
		cert := secIssue(t, secDerive(t, "other").CA, "system:admin", "system:masters")
		secCheckRefused(t, secCertClient(secCAPool(t, bCfg), &cert), bURL)
	})
}

// secCheckRefused checks that a request to url with hc is refused: by the
// TLS handshake, or with 401 as kube-apiserver answers a client
// certificate its client CAs did not sign.
func secCheckRefused(t *testing.T, hc *http.Client, url string) {
	t.Helper()
	r, err := secDo(hc, http.MethodGet, url)
	switch {
	case err != nil:
		// kube-apiserver requests client certificates without verifying
		// them in the handshake (tls.RequestClientCert) and answers an
		// unverifiable one with 401; refusing the handshake refuses too.
		t.Logf("refused in the TLS handshake (kube-apiserver: 401 Unauthorized): %v", err)
	case r.code == http.StatusUnauthorized:
		t.Logf("refused with 401: %s", r.body)
	default:
		t.Fatalf("a foreign client certificate got HTTP %d: %s", r.code, r.body)
	}
}
