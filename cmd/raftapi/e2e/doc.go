// Package e2e tests the raftapi binary from outside: real processes on
// loopback, driven over the public HTTPS API with the admin kubeconfig
// each node writes, with real faults (kill -9, SIGSTOP). The binary is
// $RAFTAPI_BIN, or built once by TestMain.
package e2e
