package cluster

import (
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/raftapi/raftapi/pki"
)

// kubeconfig returns a kubeconfig for server (an https:// URL) that
// verifies the server with caPEM and authenticates with the client
// certificate in leaf.
func kubeconfig(server string, caPEM []byte, leaf pki.Leaf) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["raftapi"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: leaf.CertPEM, ClientKeyData: leaf.KeyPEM}
	cfg.Contexts["raftapi"] = &clientcmdapi.Context{Cluster: "raftapi", AuthInfo: "admin"}
	cfg.CurrentContext = "raftapi"
	return clientcmd.Write(*cfg)
}

// ClientKubeconfig returns a kubeconfig for server (an https:// URL of any
// node of the cluster whose join token is token) that verifies the server
// with the cluster CA and authenticates as user in groups, with a client
// certificate the cluster CA signs now. It needs no running node: every
// node derives the same CA from the token. With no user, it is the admin
// user in system:masters, as the kubeconfig a node writes.
func ClientKubeconfig(token, server, user string, groups []string) ([]byte, error) {
	tok, err := pki.ParseToken(token)
	if err != nil {
		return nil, err
	}
	auth, err := pki.Derive(tok.Secret)
	if err != nil {
		return nil, err
	}
	if err := auth.Check(tok); err != nil {
		return nil, err
	}
	if user == "" {
		user, groups = pki.AdminUser, []string{pki.AdminGroup}
	}
	leaf, err := auth.CA.Issue(pki.LeafSpec{CommonName: user, Organization: groups, Client: true})
	if err != nil {
		return nil, err
	}
	return kubeconfig(server, auth.CA.CertPEM, leaf)
}
