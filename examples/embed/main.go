// Command embed runs a raftapi node inside its own process and talks to it
// with client-go, as an appliance embedding raftapi would:
//
//	go run ./examples/embed                   # data in a temporary directory
//	go run ./examples/embed --data-dir DIR    # data kept in DIR
//
// It starts a single node with cluster.Start on loopback ports the kernel
// picks, waits until the node is ready, creates a ConfigMap while watching
// the namespace, reads the ConfigMap back, and stops the node.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/raftapi/raftapi/cluster"
)

func main() {
	dataDir := flag.String("data-dir", "", "the node's data directory (default: a new temporary directory, removed at exit)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, *dataDir); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// nodeName is the node's name in its (single-node) cluster.
const nodeName = "embedded"

// run starts a node keeping its data in dataDir (a temporary directory
// when empty), does one ConfigMap round trip through it, reports each step
// on out and stops the node.
func run(ctx context.Context, out io.Writer, dataDir string) (err error) {
	if dataDir == "" {
		if dataDir, err = os.MkdirTemp("", "raftapi-embed"); err != nil {
			return err
		}
		defer os.RemoveAll(dataDir)
	}

	// One node, no InitialCluster: a single-node cluster. Port 0 lets the
	// kernel pick free loopback ports for the API and for the peer
	// traffic (raft); a single node advertises the port it bound. A
	// cluster of several nodes needs fixed peer addresses instead, the
	// same Token on every node, and InitialCluster (or gossip: Join and
	// BootstrapExpect). Logger is nil: the node logs nothing.
	node, err := cluster.Start(cluster.Config{
		Name:       nodeName,
		DataDir:    dataDir,
		Listen:     "127.0.0.1:0",
		PeerListen: "127.0.0.1:0",
	})
	if err != nil {
		return fmt.Errorf("start the node: %w", err)
	}
	// Stop waits for the requests in flight, then closes the store. It
	// does not leave the cluster (Node.Leave does): started again on the
	// same data directory, the node carries on where it stopped.
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if serr := node.Stop(stopCtx); serr != nil && err == nil {
			err = fmt.Errorf("stop the node: %w", serr)
		}
		fmt.Fprintln(out, "node stopped")
	}()
	fmt.Fprintf(out, "node %s serving https://%s, kubeconfig %s\n", nodeName, node.APIAddr(), node.Kubeconfig())

	// The node wrote an admin kubeconfig (its CA, and a client certificate
	// in system:masters) into its data directory: client-go, kubectl and
	// any other Kubernetes client use it as they would any cluster's.
	cfg, err := clientcmd.BuildConfigFromFlags("", node.Kubeconfig())
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	// Start returns once the node listens; WaitReady waits until it passes
	// every check of /readyz: it has elected itself leader, applied its
	// log and created the system namespaces. (A client in another process
	// polls GET /readyz until it answers "ok".)
	readyCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := node.WaitReady(readyCtx); err != nil {
		return err
	}
	fmt.Fprintln(out, "node ready")
	return configMapRoundTrip(ctx, out, cs)
}

// configMapRoundTrip watches the default namespace's ConfigMaps, creates
// one, waits for the watch to deliver it and reads it back.
func configMapRoundTrip(ctx context.Context, out io.Writer, cs kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps(metav1.NamespaceDefault)

	// Watch from the list's resourceVersion (a raft log index): every
	// change after it arrives, in order, and nothing before it.
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list configmaps: %w", err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		return fmt.Errorf("watch configmaps: %w", err)
	}
	defer w.Stop()

	created, err := cms.Create(ctx, &corev1.ConfigMap{
		// generateName: the server picks the name, so every run on a kept
		// data directory adds one more.
		ObjectMeta: metav1.ObjectMeta{GenerateName: "greeting-", Labels: map[string]string{"app": "greeting"}},
		Data:       map[string]string{"message": "hello from an embedded raftapi"},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create configmap: %w", err)
	}
	fmt.Fprintf(out, "created configmap default/%s at resourceVersion %s\n", created.Name, created.ResourceVersion)

	if err := awaitAdded(ctx, w, created); err != nil {
		return err
	}
	fmt.Fprintf(out, "watch: ADDED default/%s at resourceVersion %s\n", created.Name, created.ResourceVersion)

	got, err := cms.Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get configmap: %w", err)
	}
	fmt.Fprintf(out, "get: default/%s message=%q\n", got.Name, got.Data["message"])

	// A Most Recent list is a quorum read: it sees every acknowledged
	// write. The selector leaves out kube-root-ca.crt, which the server
	// publishes in every namespace, as kube does.
	if list, err = cms.List(ctx, metav1.ListOptions{LabelSelector: "app=greeting"}); err != nil {
		return fmt.Errorf("list configmaps: %w", err)
	}
	fmt.Fprintf(out, "list: %d greeting configmap(s) in default at resourceVersion %s\n", len(list.Items), list.ResourceVersion)
	return nil
}

// awaitAdded waits for w's ADDED event of want, at want's resourceVersion.
func awaitAdded(ctx context.Context, w watch.Interface, want *corev1.ConfigMap) error {
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("no ADDED event for configmap %s: %w", want.Name, ctx.Err())
		case ev, ok := <-w.ResultChan():
			if !ok {
				return errors.New("the watch ended before the ADDED event")
			}
			cm, isCM := ev.Object.(*corev1.ConfigMap)
			if ev.Type != watch.Added || !isCM || cm.Name != want.Name {
				continue
			}
			if cm.ResourceVersion != want.ResourceVersion {
				return fmt.Errorf("watch: ADDED at resourceVersion %s, created at %s", cm.ResourceVersion, want.ResourceVersion)
			}
			return nil
		}
	}
}
