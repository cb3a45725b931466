package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/raftapi/raftapi/cluster"
)

// clientFlags are the flags of the commands that talk to a running node:
// a kubeconfig holding an admin credential and, optionally, another server.
type clientFlags struct {
	kubeconfig, server string
}

// addClientFlags adds the client flags to cmd.
func addClientFlags(cmd *cobra.Command) *clientFlags {
	f := &clientFlags{}
	def := os.Getenv("KUBECONFIG")
	if def == "" {
		def = cluster.KubeconfigPath(cluster.DefaultDataDir)
	}
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", def, "kubeconfig with an admin credential (a node writes DATA-DIR/admin.kubeconfig; default $KUBECONFIG)")
	cmd.Flags().StringVar(&f.server, "server", "", "URL of a node's API (default: the kubeconfig's server); http:// only for a node started with --insecure-http")
	_ = cmd.MarkFlagFilename("kubeconfig")
	return f
}

// client returns the server URL and an HTTP client authenticated as the
// kubeconfig says.
func (f *clientFlags) client(timeout time.Duration) (string, *http.Client, error) {
	if strings.HasPrefix(f.server, "http://") {
		return strings.TrimRight(f.server, "/"), &http.Client{Timeout: timeout}, nil
	}
	if _, err := os.Stat(f.kubeconfig); errors.Is(err, os.ErrNotExist) {
		return "", nil, fmt.Errorf("no kubeconfig at %s: give --kubeconfig (a node writes DATA-DIR/%s)", f.kubeconfig, "admin.kubeconfig")
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: f.kubeconfig},
		&clientcmd.ConfigOverrides{ClusterInfo: clientcmdapi.Cluster{Server: f.server}})
	cfg, err := loader.ClientConfig()
	if err != nil {
		return "", nil, fmt.Errorf("kubeconfig %s: %w", f.kubeconfig, err)
	}
	cfg.Timeout = timeout
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return "", nil, err
	}
	return strings.TrimRight(cfg.Host, "/"), hc, nil
}
