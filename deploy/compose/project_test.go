package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Deadlines of the docker and compose calls. Every call gets one, so a
// wedged engine fails the test instead of hanging it.
const (
	quickCall = 30 * time.Second // inspect, kill, cp, network
	slowCall  = 2 * time.Minute  // up, stop, restart, down
)

// services are the nodes of compose.yaml, in order: services[i] has the
// address <net>.(11+i) and the host port ports[i].
var services = []string{"n1", "n2", "n3"}

// project is one Compose project running compose.yaml.
type project struct {
	t       *testing.T
	compose []string // "docker compose" or "docker-compose"
	file    string   // absolute path of compose.yaml
	name    string   // the project name (-p)
	net     string   // first three octets of the project's /24 network
	ports   []int    // host port of each service's API
	env     []string // the environment of every compose call
}

// run runs a command with a deadline and returns its combined output.
func run(ctx context.Context, timeout time.Duration, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// docker runs a docker command.
func docker(ctx context.Context, timeout time.Duration, args ...string) (string, error) {
	return run(ctx, timeout, nil, "docker", args...)
}

// composeCommand finds Docker Compose, the plugin or else docker-compose
// (v2, or v1 from 1.27 on), and returns the command and its version.
func composeCommand(ctx context.Context) (cmd []string, version string, err error) {
	for _, cmd := range [][]string{{"docker", "compose"}, {"docker-compose"}} {
		out, err := run(ctx, quickCall, nil, cmd[0], append(cmd[1:], "version", "--short")...)
		if err == nil {
			return cmd, strings.TrimSpace(out), nil
		}
	}
	return nil, "", errors.New("neither `docker compose` nor `docker-compose` runs")
}

// run runs a compose command on the project.
func (p *project) run(ctx context.Context, timeout time.Duration, args ...string) (string, error) {
	full := append(append(p.compose[1:len(p.compose):len(p.compose)], "-p", p.name, "-f", p.file), args...)
	return run(ctx, timeout, p.env, p.compose[0], full...)
}

// must runs a compose command and fails the test if it fails.
func (p *project) must(ctx context.Context, timeout time.Duration, args ...string) {
	p.t.Helper()
	if _, err := p.run(ctx, timeout, args...); err != nil {
		p.t.Fatal(err)
	}
}

// container returns the id of a service's container.
func (p *project) container(ctx context.Context, service string) string {
	p.t.Helper()
	out, err := p.run(ctx, quickCall, "ps", "-q", service)
	id := strings.TrimSpace(out)
	if err != nil || id == "" || strings.Contains(id, "\n") {
		p.t.Fatalf("container of %s: %q %v", service, id, err)
	}
	return id
}

// ip is the fixed address of the i-th service.
func (p *project) ip(i int) string { return fmt.Sprintf("%s.%d", p.net, 11+i) }

// network is the name of the project's network, as the engine knows it.
func (p *project) network(ctx context.Context, id string) string {
	p.t.Helper()
	out, err := docker(ctx, quickCall, "inspect", "-f", "{{range $k, $v := .NetworkSettings.Networks}}{{$k}}{{end}}", id)
	if err != nil || strings.TrimSpace(out) == "" {
		p.t.Fatalf("network of %s: %q %v", id, out, err)
	}
	return strings.TrimSpace(out)
}

// volume is the name of the named volume a container mounts.
func (p *project) volume(ctx context.Context, id string) string {
	p.t.Helper()
	out, err := docker(ctx, quickCall, "inspect", "-f", "{{range .Mounts}}{{.Name}}{{end}}", id)
	if err != nil || strings.TrimSpace(out) == "" {
		p.t.Fatalf("volume of %s: %q %v", id, out, err)
	}
	return strings.TrimSpace(out)
}

// copyKubeconfig copies a node's admin.kubeconfig to dir, waiting until
// the node has written it.
func (p *project) copyKubeconfig(ctx context.Context, service, dir string) string {
	p.t.Helper()
	dst := filepath.Join(dir, "admin.kubeconfig")
	_, err := eventually(ctx, time.Minute, func(ctx context.Context) error {
		_, err := docker(ctx, quickCall, "cp", p.container(ctx, service)+":/var/lib/raftapi/admin.kubeconfig", dst)
		return err
	})
	if err != nil {
		p.t.Fatalf("copy the kubeconfig of %s: %v", service, err)
	}
	return dst
}

// down removes the project's containers, network and volumes; whatever
// compose leaves behind is removed by its project label.
func (p *project) down() {
	ctx := context.Background()
	if p.t.Failed() {
		out, _ := p.run(ctx, slowCall, "logs", "--no-color", "--tail=150")
		p.t.Logf("compose logs (last lines of each node):\n%s", out)
	}
	if out, err := p.run(ctx, slowCall, "down", "-v", "--remove-orphans", "-t", "30"); err != nil {
		p.t.Errorf("compose down: %v\n%s", err, out)
	}
	p.removeLeftovers(ctx)
}

// removeLeftovers removes anything still labelled with the project.
func (p *project) removeLeftovers(ctx context.Context) {
	label := "label=com.docker.compose.project=" + p.name
	for _, kind := range []string{"container", "volume", "network"} {
		args := []string{kind, "ls", "-q", "--filter", label}
		if kind == "container" {
			args = append(args, "-a")
		}
		out, err := docker(ctx, quickCall, args...)
		ids := strings.Fields(out)
		if err != nil || len(ids) == 0 {
			continue
		}
		p.t.Errorf("compose down left %ss behind: %v", kind, ids)
		if _, err := docker(ctx, slowCall, append([]string{kind, "rm", "-f"}, ids...)...); err != nil {
			p.t.Errorf("remove them: %v", err)
		}
	}
}

// composeEnv is the environment of the compose calls: this process's,
// with the project's token, ports and network.
func (p *project) composeEnv(token string) []string {
	env := append(os.Environ(), "RAFTAPI_TOKEN="+token, "RAFTAPI_NET="+p.net)
	for i, port := range p.ports {
		env = append(env, fmt.Sprintf("RAFTAPI_N%d_PORT=%d", i+1, port))
	}
	return env
}
