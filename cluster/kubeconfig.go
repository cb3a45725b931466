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
