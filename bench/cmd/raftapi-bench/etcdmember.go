package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/raftapi/raftapi/bench/internal/etcdnodes"
)

// etcdMemberCmd runs one etcd member until SIGTERM: the etcd cluster's
// members are this binary started with it by etcdnodes.
func etcdMemberCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("etcd-member", flag.ContinueOnError)
	var mc etcdnodes.MemberConfig
	fs.StringVar(&mc.Name, "name", "", "member name")
	fs.StringVar(&mc.DataDir, "data-dir", "", "data directory")
	fs.StringVar(&mc.ClientAddr, "client-addr", "", "client host:port")
	fs.StringVar(&mc.PeerAddr, "peer-addr", "", "peer host:port")
	fs.StringVar(&mc.InitialCluster, "initial-cluster", "", "name=https://host:port,...")
	fs.StringVar(&mc.TLS.CA, "ca", "", "CA certificate")
	fs.StringVar(&mc.TLS.Cert, "cert", "", "certificate")
	fs.StringVar(&mc.TLS.Key, "key", "", "key")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := etcdnodes.RunMember(ctx, mc); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
