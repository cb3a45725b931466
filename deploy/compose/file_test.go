package compose

import (
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/raftapi/raftapi/deploy/internal/deploytest"
)

func TestMain(m *testing.M) { os.Exit(deploytest.Main(m)) }

// composeFile is the part of compose.yaml these checks read.
type composeFile struct {
	Services map[string]struct {
		Command     []string       `json:"command"`
		Environment map[string]any `json:"environment"`
		Networks    map[string]struct {
			IPv4Address string `json:"ipv4_address"`
		} `json:"networks"`
	} `json:"services"`
}

// adminFlags are flags of the admin commands (status, members, leave)
// that the image sets for use inside a container.
var adminFlags = []string{"kubeconfig"}

// TestFlagsExist: every flag compose.yaml and the Dockerfile give, on
// the command line or as RAFTAPI_<FLAG>, is one the binary has. It needs
// no Docker engine.
func TestFlagsExist(t *testing.T) {
	known := knownFlags(t)
	cf := readComposeFile(t)
	for svc, s := range cf.Services {
		for _, arg := range s.Command[1:] {
			name, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
			if !known[name] {
				t.Errorf("%s: %s is no flag of raftapi serve", svc, arg)
			}
		}
		for env := range s.Environment {
			checkEnv(t, known, "compose.yaml "+svc, env)
		}
	}
	dockerfile, err := os.ReadFile("../image/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range regexp.MustCompile(`\bRAFTAPI_[A-Z0-9_]+=`).FindAllString(string(dockerfile), -1) {
		checkEnv(t, known, "Dockerfile", strings.TrimSuffix(env, "="))
	}
}

// TestNodesAreConsistent: each service is the node of its name and
// advertises its own fixed address; it joins the others.
func TestNodesAreConsistent(t *testing.T) {
	cf := readComposeFile(t)
	if got := len(cf.Services); got != len(services) {
		t.Fatalf("compose.yaml has %d services, want %v", got, services)
	}
	for svc, s := range cf.Services {
		if len(s.Command) == 0 || s.Command[0] != "serve" {
			t.Fatalf("%s: command %q does not run serve", svc, s.Command)
		}
		ip := s.Networks["raftapi"].IPv4Address
		flags := map[string]string{}
		for _, arg := range s.Command[1:] {
			name, value, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
			flags[name] = value
		}
		if flags["name"] != svc {
			t.Errorf("%s: --name=%s", svc, flags["name"])
		}
		for _, f := range []string{"peer-advertise", "gossip-advertise"} {
			if host, _, err := net.SplitHostPort(flags[f]); err != nil || host != ip {
				t.Errorf("%s: --%s=%s, want the service's address %s", svc, f, flags[f], ip)
			}
		}
		joined := strings.Split(flags["join"], ",")
		for _, other := range services {
			if (other == svc) == slices.Contains(joined, other+":7946") {
				t.Errorf("%s: --join=%s, want every other node and not itself", svc, flags["join"])
				break
			}
		}
	}
}

// knownFlags returns the flags of raftapi serve and the admin flags.
func knownFlags(t *testing.T) map[string]bool {
	t.Helper()
	known := deploytest.ServeFlags(t)
	out, _ := exec.Command(deploytest.Binary(t), "status", "--help").CombinedOutput()
	for _, f := range adminFlags {
		if !strings.Contains(string(out), "--"+f+" ") {
			t.Fatalf("raftapi status has no --%s:\n%s", f, out)
		}
		known[f] = true
	}
	return known
}

// checkEnv fails the test if env is not RAFTAPI_ and a known flag.
func checkEnv(t *testing.T, known map[string]bool, where, env string) {
	t.Helper()
	name, ok := strings.CutPrefix(env, "RAFTAPI_")
	if flag := strings.ReplaceAll(strings.ToLower(name), "_", "-"); !ok || !known[flag] {
		t.Errorf("%s: %s names no flag", where, env)
	}
}

// withDefault is a compose variable with its default: ${NAME:-default}.
var withDefault = regexp.MustCompile(`\$\{[A-Z0-9_]+:-([^}]*)\}`)

// readComposeFile parses compose.yaml, its variables at their defaults.
func readComposeFile(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(withDefault.ReplaceAll(raw, []byte("$1")), &cf); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return cf
}
