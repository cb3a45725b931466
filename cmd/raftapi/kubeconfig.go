package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/raftapi/raftapi/cluster"
)

func newKubeconfigCmd() *cobra.Command {
	var token, tokenFile, dataDir, server, user, groups, out string
	cmd := &cobra.Command{
		Use:   "kubeconfig --server URL (--token T | --token-file F | --data-dir DIR)",
		Short: "Write a kubeconfig for a cluster from its join token",
		Long: `Write a kubeconfig for any node of the cluster whose join token is given,
without asking a node: every node derives the same CA from the token, so
the kubeconfig trusts the cluster CA and carries a client certificate the
CA signs now. By default the user is the admin (system:admin in
system:masters), like DATA-DIR/admin.kubeconfig; --user and --group make
a certificate for another identity. Useful where a node's data directory
cannot be read, e.g. a node in a container image without a shell.`,
		Example: `  raftapi kubeconfig --token-file /etc/raftapi/token --server https://10.0.0.1:6443 > admin.kubeconfig
  raftapi kubeconfig --data-dir d1 --server https://127.0.0.1:8081 --user alice --group dev -o alice.kubeconfig`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if server == "" || !strings.HasPrefix(server, "https://") {
				return usagef("--server must be the https:// URL of a node's API")
			}
			tok, err := tokenFrom(token, tokenFile, dataDir)
			if err != nil {
				return err
			}
			var gs []string
			if groups != "" {
				gs = strings.Split(groups, ",")
			}
			if user == "" && len(gs) > 0 {
				return usagef("--group needs --user")
			}
			kc, err := cluster.ClientKubeconfig(tok, server, user, gs)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(kc)
				return err
			}
			return os.WriteFile(out, kc, 0o600)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&server, "server", "", "https:// URL of a node's API (required)")
	fs.StringVar(&token, "token", "", "the cluster's join token")
	fs.StringVar(&tokenFile, "token-file", "", "file holding the join token")
	fs.StringVar(&dataDir, "data-dir", "", "data directory of a node of the cluster, holding its token")
	fs.StringVar(&user, "user", "", "user name of the client certificate (default: the admin, system:admin in system:masters)")
	fs.StringVar(&groups, "group", "", "groups of the client certificate: group[,group...]")
	fs.StringVarP(&out, "output", "o", "", "file to write (mode 0600); default standard output")
	_ = cmd.MarkFlagFilename("token-file")
	_ = cmd.MarkFlagDirname("data-dir")
	return cmd
}

// tokenFrom returns the token given by exactly one of the three sources.
func tokenFrom(token, tokenFile, dataDir string) (string, error) {
	given := 0
	for _, s := range []string{token, tokenFile, dataDir} {
		if s != "" {
			given++
		}
	}
	if given != 1 {
		return "", usagef("give exactly one of --token, --token-file and --data-dir")
	}
	switch {
	case tokenFile != "":
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	case dataDir != "":
		return cluster.ReadToken(dataDir)
	}
	return token, nil
}
