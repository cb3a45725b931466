package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/raftapi/raftapi/cluster"
)

const snapshotUsage = `usage:
  raftapi snapshot save FILE [--kubeconfig FILE] [--server URL]
  raftapi snapshot restore FILE --data-dir DIR [--name N] [--initial-cluster n1=host:port,...] [--peer-listen host:port]`

// snapshotCmd runs "snapshot save" and "snapshot restore".
func snapshotCmd(args []string) error {
	if len(args) == 0 {
		return &usageError{err: errors.New("snapshot: missing subcommand"), usage: snapshotUsage}
	}
	switch args[0] {
	case "save":
		return snapshotSave(args[1:])
	case "restore":
		return snapshotRestore(args[1:])
	case "help", "-h", "-help", "--help":
		return &usageError{err: flag.ErrHelp, usage: snapshotUsage}
	}
	return &usageError{err: fmt.Errorf("snapshot: unknown subcommand %q", args[0]), usage: snapshotUsage}
}

// fileAndFlags parses "FILE [flags]" or "[flags] FILE" for "snapshot
// <fs.Name()>".
func fileAndFlags(fs *flag.FlagSet, args []string) (string, error) {
	var file string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		file, args = args[0], args[1:]
	}
	synopsis := "raftapi snapshot " + fs.Name() + " FILE [flags]"
	if err := parseFlags(fs, synopsis, args); err != nil {
		return "", err
	}
	if file == "" && fs.NArg() == 1 {
		return fs.Arg(0), nil
	}
	if file == "" || fs.NArg() > 0 {
		err := fmt.Errorf("snapshot %s: want exactly one FILE", fs.Name())
		return "", &usageError{err: err, usage: flagUsage(fs, synopsis)}
	}
	return file, nil
}

func snapshotSave(args []string) error {
	fs := flag.NewFlagSet("save", flag.ContinueOnError)
	cf := addClientFlags(fs)
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	file, err := fileAndFlags(fs, args)
	if err != nil {
		return err
	}
	server, hc, err := cf.client(0)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	info, err := cluster.SaveSnapshot(ctx, hc, server, file)
	if err != nil {
		return err
	}
	fmt.Printf("saved snapshot %s: revision %d, %d bytes\n", file, info.Revision, info.Size)
	return nil
}

func snapshotRestore(args []string) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	var cfg cluster.RestoreConfig
	var initial string
	fs.StringVar(&cfg.DataDir, "data-dir", cluster.DefaultDataDir, "new data directory to prepare (must not exist or be empty)")
	fs.StringVar(&cfg.Name, "name", cluster.DefaultName, "name of the node that will serve --data-dir")
	fs.StringVar(&cfg.PeerListen, "peer-listen", cluster.DefaultPeerListen, "that node's peer address, for a single-node cluster")
	fs.StringVar(&initial, "initial-cluster", "", "the restored cluster: name=host:port,... (peer addresses); empty: the single node --name at --peer-listen")
	fs.StringVar(&cfg.Token, "token", "", "the restored cluster's join token, the same for every node (required for several nodes); stored in --data-dir")
	file, err := fileAndFlags(fs, args)
	if err != nil {
		return err
	}
	if cfg.InitialCluster, err = cluster.ParseInitialCluster(initial); err != nil {
		return err
	}
	rev, err := cluster.RestoreSnapshot(file, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("restored snapshot %s at revision %d into %s\n", file, rev, cfg.DataDir)
	fmt.Printf("start the node with: raftapi serve --name %s --data-dir %s (and the same --peer-listen; the token is stored in the data dir)\n", cfg.Name, cfg.DataDir)
	return nil
}
