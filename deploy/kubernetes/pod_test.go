package kubernetes

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// containerName is the raftapi container of the StatefulSet's pods.
const containerName = "raftapi"

// pod is the StatefulSet, its pod template, the raftapi container and
// that container's serve flags.
type pod struct {
	sts   *appsv1.StatefulSet
	spec  *corev1.PodSpec
	c     *corev1.Container
	flags []flagArg
}

// flagArg is one --name=value argument ("" for a bare boolean flag).
type flagArg struct{ name, value string }

func loadPod(t *testing.T) (*manifests, *pod) {
	t.Helper()
	m := loadManifests(t)
	if len(m.statefulSets) != 1 {
		t.Fatalf("%d StatefulSets, want 1", len(m.statefulSets))
	}
	p := &pod{sts: m.statefulSets[0]}
	p.spec = &p.sts.Spec.Template.Spec
	for i := range p.spec.Containers {
		if p.spec.Containers[i].Name == containerName {
			p.c = &p.spec.Containers[i]
		}
	}
	if p.c == nil {
		t.Fatalf("the StatefulSet has no container %q", containerName)
	}
	var err error
	if p.flags, err = parseServeArgs(p.c.Args); err != nil {
		t.Fatalf("container args: %v", err)
	}
	return m, p
}

// parseServeArgs parses "serve --flag=value ...". Every value is given
// after "=", so that the arguments read the same whatever the flag's type.
func parseServeArgs(args []string) ([]flagArg, error) {
	if len(args) == 0 || args[0] != "serve" {
		return nil, fmt.Errorf("%q does not start with serve", args)
	}
	var out []flagArg
	for i, a := range args[1:] {
		if !strings.HasPrefix(a, "--") {
			return nil, fmt.Errorf("argument %d, %q, is not --flag=value", i+1, a)
		}
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		out = append(out, flagArg{name, value})
	}
	return out, nil
}

// flag returns the value of flag name; it fails the test if the flag is
// missing or given twice.
func (p *pod) flag(t *testing.T, name string) string {
	t.Helper()
	var values []string
	for _, f := range p.flags {
		if f.name == name {
			values = append(values, f.value)
		}
	}
	if len(values) != 1 {
		t.Fatalf("--%s is given %d times in the container args, want once", name, len(values))
	}
	return values[0]
}

// port returns the port of the host:port value of flag name.
func (p *pod) port(t *testing.T, name string) int32 {
	t.Helper()
	_, port := splitAddr(t, name, p.flag(t, name))
	return port
}

// host returns the host of the host:port value of flag name.
func (p *pod) host(t *testing.T, name string) string {
	t.Helper()
	host, _ := splitAddr(t, name, p.flag(t, name))
	return host
}

func splitAddr(t *testing.T, flag, addr string) (string, int32) {
	t.Helper()
	host, ps, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("--%s=%s: %v", flag, addr, err)
	}
	port, err := strconv.ParseInt(ps, 10, 32)
	if err != nil {
		t.Fatalf("--%s=%s: port: %v", flag, addr, err)
	}
	return host, int32(port)
}

// containerPort returns the container port named name.
func (p *pod) containerPort(name string) (corev1.ContainerPort, bool) {
	for _, cp := range p.c.Ports {
		if cp.Name == name {
			return cp, true
		}
	}
	return corev1.ContainerPort{}, false
}

// selects reports whether sel matches the pod template's labels.
func (p *pod) selects(t *testing.T, sel *metav1.LabelSelector) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return !s.Empty() && s.Matches(labels.Set(p.sts.Spec.Template.Labels))
}

// selectsMap is selects for a Service's plain selector.
func (p *pod) selectsMap(sel map[string]string) bool {
	return len(sel) > 0 && labels.SelectorFromSet(sel).Matches(labels.Set(p.sts.Spec.Template.Labels))
}

// envRefs are the $(VAR) references the kubelet expands in args.
var envRefs = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand does what the kubelet does to args: $(VAR) becomes the value of
// the container's env VAR; an undefined reference stays as it is.
func expand(s string, env map[string]string) string {
	return envRefs.ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := env[ref[2:len(ref)-1]]; ok {
			return v
		}
		return ref
	})
}
