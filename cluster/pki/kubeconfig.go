package pki

import (
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// AdminUser and AdminGroup name the admin credential a node writes into its
// kubeconfig; system:masters is the group kube-apiserver treats as
// all-powerful.
const (
	AdminUser  = "system:admin"
	AdminGroup = "system:masters"
)

// Kubeconfig returns a kubeconfig for server (an https:// URL) that
// verifies the server with caPEM and authenticates with the client
// certificate in leaf.
func Kubeconfig(server string, caPEM []byte, leaf Leaf) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["raftapi"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: leaf.CertPEM, ClientKeyData: leaf.KeyPEM}
	cfg.Contexts["raftapi"] = &clientcmdapi.Context{Cluster: "raftapi", AuthInfo: "admin"}
	cfg.CurrentContext = "raftapi"
	return clientcmd.Write(*cfg)
}
