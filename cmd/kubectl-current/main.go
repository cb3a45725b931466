// Command kubectl-current is an unmodified kubectl built from the newest
// k8s.io/kubectl release, so the end-to-end tests can check that the
// server works with current clients as well as with the v1.32 kubectl.
//
// Build it with `make kubectl-current`; the tests find it through
// $RAFTAPI_KUBECTL_CURRENT.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
