package cluster

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestWildcardAddresses: a cluster node bound to a wildcard peer address
// must say which address to advertise; a single node advertises the
// loopback address; the API address told to others is dialable.
func TestWildcardAddresses(t *testing.T) {
	_, err := Start(Config{Name: "a", DataDir: t.TempDir(), Listen: "127.0.0.1:0", PeerListen: "0.0.0.0:0",
		InitialCluster: map[string]string{"a": "10.0.0.1:7080", "b": "10.0.0.2:7080"}, Token: testToken})
	if err == nil || !strings.Contains(err.Error(), "--peer-advertise") {
		t.Fatalf("a cluster node on a wildcard peer address: %v, want a refusal naming --peer-advertise", err)
	}

	n, err := Start(Config{Name: "solo", DataDir: t.TempDir(), Listen: "0.0.0.0:0", PeerListen: "0.0.0.0:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopNode(t, n) })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := n.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	members, err := n.Members(ctx)
	if err != nil || len(members) != 1 {
		t.Fatalf("members: %v %v", members, err)
	}
	m := members[0]
	if !strings.HasPrefix(m.PeerAddress, "127.0.0.1:") || !strings.HasPrefix(m.APIAddress, "127.0.0.1:") {
		t.Fatalf("advertised peer %s, API %s: want loopback addresses", m.PeerAddress, m.APIAddress)
	}

	for _, tc := range []struct{ bound, peer, want string }{
		{"10.0.0.5:6443", "10.0.0.5:7080", "10.0.0.5:6443"},
		{"[::]:6443", "10.0.0.5:7080", "10.0.0.5:6443"},
		{"0.0.0.0:6443", "node-1.example:7080", "node-1.example:6443"},
	} {
		if got := advertisedAPI(tc.bound, tc.peer); got != tc.want {
			t.Errorf("advertisedAPI(%s, %s) = %s, want %s", tc.bound, tc.peer, got, tc.want)
		}
	}
}

// TestClientKubeconfig: a kubeconfig made from the token alone, for
// another user, is trusted by a running node, which sees that user (a
// SelfSubjectReview, which the default policy lets anyone make); a
// wrong token's CA is not.
func TestClientKubeconfig(t *testing.T) {
	n := startSingleNode(t)
	tok, err := ReadToken(n.cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := ClientKubeconfig(tok, baseURL(n), "alice", []string{"dev"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Post(baseURL(n)+"/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json",
		strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
	if err != nil {
		t.Fatal(err)
	}
	var review authenticationv1.SelfSubjectReview
	err = json.NewDecoder(resp.Body).Decode(&review)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || err != nil || review.Status.UserInfo.Username != "alice" ||
		!slices.Contains(review.Status.UserInfo.Groups, "dev") {
		t.Fatalf("alice's SelfSubjectReview: %s %v %+v", resp.Status, err, review.Status.UserInfo)
	}
	if _, err := ClientKubeconfig("K10"+strings.Repeat("0", 64)+"::server:"+"other-secret-0123456789", baseURL(n), "", nil); err == nil {
		t.Fatal("a token whose CA hash does not match its secret was accepted")
	}
}
