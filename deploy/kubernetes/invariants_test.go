package kubernetes

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The image's contract (deploy/image/Dockerfile): the user, the volume and
// the ports.
const (
	imageUID     = 65532
	imageVolume  = "/var/lib/raftapi"
	imageName    = "raftapi:latest"
	apiPortName  = "api"
	apiPort      = 6443
	peerPort     = 7080
	gossipPort   = 7946
	nodeNameEnv  = "POD_NAME"
	podIPEnv     = "POD_IP"
	namespaceEnv = "NAMESPACE"
)

func TestReplicasAndBootstrap(t *testing.T) {
	_, p := loadPod(t)
	replicas := *p.sts.Spec.Replicas
	if replicas%2 == 0 {
		t.Errorf("replicas = %d: an even number tolerates no more failures than one fewer", replicas)
	}
	if got := p.flag(t, "bootstrap-expect"); got != strconv.Itoa(int(replicas)) {
		t.Errorf("--bootstrap-expect=%s, want the replicas, %d", got, replicas)
	}
	if p.sts.Spec.PodManagementPolicy != "Parallel" {
		t.Errorf("podManagementPolicy %q: a node is ready only once --bootstrap-expect pods run, so OrderedReady never starts the second", p.sts.Spec.PodManagementPolicy)
	}
	if !p.selects(t, p.sts.Spec.Selector) {
		t.Errorf("the StatefulSet's selector %v does not match its pods' labels %v", p.sts.Spec.Selector, p.sts.Spec.Template.Labels)
	}
	if got := p.flag(t, "name"); got != "$("+nodeNameEnv+")" {
		t.Errorf("--name=%s, want $(%s): the pod's stable name is the node's name", got, nodeNameEnv)
	}
}

func TestProbes(t *testing.T) {
	_, p := loadPod(t)
	for _, pr := range []struct {
		kind  string
		probe *corev1.Probe
		path  string
	}{
		{"startupProbe", p.c.StartupProbe, "/livez"},
		{"livenessProbe", p.c.LivenessProbe, "/livez"},
		{"readinessProbe", p.c.ReadinessProbe, "/readyz"},
	} {
		if pr.probe == nil || pr.probe.HTTPGet == nil {
			t.Errorf("%s: want an httpGet probe of %s", pr.kind, pr.path)
			continue
		}
		g := pr.probe.HTTPGet
		if g.Path != pr.path || g.Scheme != corev1.URISchemeHTTPS {
			t.Errorf("%s: %s %s, want HTTPS %s", pr.kind, g.Scheme, g.Path, pr.path)
		}
		if g.Port != intstr.FromString(apiPortName) {
			t.Errorf("%s: port %s, want the container port named %s", pr.kind, g.Port.String(), apiPortName)
		}
	}
	cp, ok := p.containerPort(apiPortName)
	if !ok || cp.ContainerPort != p.port(t, "listen") {
		t.Errorf("container port %s = %d (found %v), want the --listen port %d", apiPortName, cp.ContainerPort, ok, p.port(t, "listen"))
	}
}

// TestPortsMatchArgs: each address the node listens on is a container
// port of the image's, advertised on the same port, and every container
// port is one the node listens on.
func TestPortsMatchArgs(t *testing.T) {
	_, p := loadPod(t)
	want := map[string]struct {
		flag, advertise string
		port            int32
		protocols       []corev1.Protocol
	}{
		"api":    {"listen", "", apiPort, []corev1.Protocol{corev1.ProtocolTCP}},
		"peer":   {"peer-listen", "peer-advertise", peerPort, []corev1.Protocol{corev1.ProtocolTCP}},
		"gossip": {"gossip-listen", "gossip-advertise", gossipPort, []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP}},
	}
	listened := map[string]bool{}
	for what, w := range want {
		port := p.port(t, w.flag)
		if port != w.port {
			t.Errorf("--%s port %d, want the image's %s port %d", w.flag, port, what, w.port)
		}
		if host := p.host(t, w.flag); host != "0.0.0.0" {
			t.Errorf("--%s host %q, want 0.0.0.0: probes, peers and kubectl port-forward reach different addresses", w.flag, host)
		}
		if w.advertise != "" && p.port(t, w.advertise) != port {
			t.Errorf("--%s port %d differs from --%s port %d", w.advertise, p.port(t, w.advertise), w.flag, port)
		}
		for _, proto := range w.protocols {
			listened[fmt.Sprint(port, proto)] = true
			if !p.hasContainerPort(port, proto) {
				t.Errorf("no container port %d/%s for --%s", port, proto, w.flag)
			}
		}
	}
	for _, cp := range p.c.Ports {
		if !listened[fmt.Sprint(cp.ContainerPort, cp.Protocol)] {
			t.Errorf("container port %s %d/%s: the node listens on no such port", cp.Name, cp.ContainerPort, cp.Protocol)
		}
	}
}

func (p *pod) hasContainerPort(port int32, proto corev1.Protocol) bool {
	for _, cp := range p.c.Ports {
		if cp.ContainerPort == port && cp.Protocol == proto {
			return true
		}
	}
	return false
}

func TestServices(t *testing.T) {
	m, p := loadPod(t)
	svcs := byName(m.services)
	peers, ok := svcs[p.sts.Spec.ServiceName]
	if !ok {
		t.Fatalf("no Service %q, the StatefulSet's serviceName", p.sts.Spec.ServiceName)
	}
	if peers.Spec.ClusterIP != corev1.ClusterIPNone || !peers.Spec.PublishNotReadyAddresses {
		t.Errorf("Service %s: clusterIP %q, publishNotReadyAddresses %v; want a headless Service publishing pods before they are ready (they become ready only after finding each other)",
			peers.Name, peers.Spec.ClusterIP, peers.Spec.PublishNotReadyAddresses)
	}
	for _, s := range m.services {
		if !p.selectsMap(s.Spec.Selector) {
			t.Errorf("Service %s: selector %v does not select the StatefulSet's pods", s.Name, s.Spec.Selector)
		}
		for _, sp := range s.Spec.Ports {
			p.checkServicePort(t, s.Name, sp)
		}
	}
	var clients []*corev1.Service
	for _, s := range m.services {
		if s.Spec.ClusterIP != corev1.ClusterIPNone {
			clients = append(clients, s)
		}
	}
	if len(clients) != 1 || len(clients[0].Spec.Ports) != 1 || clients[0].Spec.Ports[0].TargetPort != intstr.FromString(apiPortName) {
		t.Fatalf("want one client Service, with one port, targeting the container port %s", apiPortName)
	}
	p.checkTLSSANs(t, clients[0].Name)
}

// checkServicePort: the target port is a container port with the same
// protocol and number as the Service port.
func (p *pod) checkServicePort(t *testing.T, svc string, sp corev1.ServicePort) {
	t.Helper()
	var cp corev1.ContainerPort
	var ok bool
	if sp.TargetPort.Type == intstr.String {
		cp, ok = p.containerPort(sp.TargetPort.StrVal)
	} else {
		for _, c := range p.c.Ports {
			if c.ContainerPort == sp.TargetPort.IntVal && c.Protocol == sp.Protocol {
				cp, ok = c, true
			}
		}
	}
	switch {
	case !ok:
		t.Errorf("Service %s port %s: target port %s is no container port", svc, sp.Name, sp.TargetPort.String())
	case cp.Protocol != sp.Protocol:
		t.Errorf("Service %s port %s: protocol %s, target container port %s is %s", svc, sp.Name, sp.Protocol, cp.Name, cp.Protocol)
	case cp.ContainerPort != sp.Port:
		t.Errorf("Service %s port %s: port %d, container port %d: use the same number", svc, sp.Name, sp.Port, cp.ContainerPort)
	}
}

// checkTLSSANs: the client Service's names are in the serving
// certificate.
func (p *pod) checkTLSSANs(t *testing.T, svc string) {
	t.Helper()
	sans := map[string]bool{}
	for _, s := range strings.Split(p.flag(t, "tls-san"), ",") {
		sans[s] = true
	}
	ns := "$(" + namespaceEnv + ")"
	for _, name := range []string{svc, svc + "." + ns, svc + "." + ns + ".svc"} {
		if !sans[name] {
			t.Errorf("--tls-san lacks %s, a name of the client Service", name)
		}
	}
}

func TestJoinAndAdvertise(t *testing.T) {
	_, p := loadPod(t)
	var want []string
	for i := range int(*p.sts.Spec.Replicas) {
		want = append(want, fmt.Sprintf("%s-%d.%s.$(%s).svc:%d", p.sts.Name, i, p.sts.Spec.ServiceName, namespaceEnv, gossipPort))
	}
	if got := p.flag(t, "join"); got != strings.Join(want, ",") {
		t.Errorf("--join=%s\nwant      %s (every pod's DNS name in the headless Service)", got, strings.Join(want, ","))
	}
	for _, f := range []string{"peer-advertise", "gossip-advertise"} {
		if host := p.host(t, f); host != "$("+podIPEnv+")" {
			t.Errorf("--%s host %s, want $(%s): memberlist advertises IPs only, and the pod IP is what the others reach", f, host, podIPEnv)
		}
	}
	if p.flag(t, "gossip-listen") == "" {
		t.Error("--join and --bootstrap-expect need --gossip-listen")
	}
}

// TestEnv: every $(VAR) in the args is defined, from the downward API.
func TestEnv(t *testing.T) {
	_, p := loadPod(t)
	fields := map[string]string{}
	for _, e := range p.c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			fields[e.Name] = e.ValueFrom.FieldRef.FieldPath
		} else {
			fields[e.Name] = ""
		}
	}
	for _, a := range p.c.Args {
		for _, ref := range envRefs.FindAllStringSubmatch(a, -1) {
			if _, ok := fields[ref[1]]; !ok {
				t.Errorf("%s refers to $(%s), which the container does not define: the kubelet would pass it literally", a, ref[1])
			}
		}
	}
	for name, path := range map[string]string{nodeNameEnv: "metadata.name", podIPEnv: "status.podIP", namespaceEnv: "metadata.namespace"} {
		if fields[name] != path {
			t.Errorf("env %s from %q, want the downward API's %s", name, fields[name], path)
		}
	}
	if p.spec.EnableServiceLinks == nil || *p.spec.EnableServiceLinks {
		t.Error("enableServiceLinks must be false: the Service raftapi would put RAFTAPI_SERVICE_HOST, RAFTAPI_PORT... in the environment, where raftapi reads RAFTAPI_* as flags")
	}
	if p.spec.AutomountServiceAccountToken == nil || *p.spec.AutomountServiceAccountToken {
		t.Error("automountServiceAccountToken must be false: raftapi never calls the cluster's API")
	}
}

func TestPodDisruptionBudget(t *testing.T) {
	m, p := loadPod(t)
	if len(m.pdbs) != 1 {
		t.Fatalf("%d PodDisruptionBudgets, want 1", len(m.pdbs))
	}
	pdb := m.pdbs[0]
	if !p.selects(t, pdb.Spec.Selector) {
		t.Errorf("the PodDisruptionBudget's selector %v does not select the StatefulSet's pods", pdb.Spec.Selector)
	}
	replicas := int(*p.sts.Spec.Replicas)
	quorum := replicas/2 + 1
	var available int
	switch {
	case pdb.Spec.MaxUnavailable != nil && pdb.Spec.MinAvailable == nil:
		available = replicas - pdb.Spec.MaxUnavailable.IntValue()
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MaxUnavailable == nil:
		available = pdb.Spec.MinAvailable.IntValue()
	default:
		t.Fatal("want exactly one of maxUnavailable and minAvailable, as an integer")
	}
	if available < quorum || available >= replicas {
		t.Errorf("the budget keeps %d of %d pods: want at least the quorum, %d, and allow at least one disruption", available, replicas, quorum)
	}
}

func TestSecurityContext(t *testing.T) {
	_, p := loadPod(t)
	ps, cs := p.spec.SecurityContext, p.c.SecurityContext
	if ps == nil || cs == nil {
		t.Fatal("want a pod and a container securityContext")
	}
	check := func(what string, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("securityContext: want %s", what)
		}
	}
	check("runAsNonRoot", isTrue(cs.RunAsNonRoot) || (cs.RunAsNonRoot == nil && isTrue(ps.RunAsNonRoot)))
	check(fmt.Sprintf("runAsUser %d, the image's user", imageUID), uid(cs.RunAsUser, ps.RunAsUser) == imageUID)
	check("readOnlyRootFilesystem", isTrue(cs.ReadOnlyRootFilesystem))
	check("allowPrivilegeEscalation false", cs.AllowPrivilegeEscalation != nil && !*cs.AllowPrivilegeEscalation)
	check("not privileged", cs.Privileged == nil || !*cs.Privileged)
	check("capabilities: drop ALL, add none", cs.Capabilities != nil && len(cs.Capabilities.Add) == 0 &&
		len(cs.Capabilities.Drop) == 1 && cs.Capabilities.Drop[0] == "ALL")
	seccomp := cs.SeccompProfile
	if seccomp == nil {
		seccomp = ps.SeccompProfile
	}
	check("seccompProfile RuntimeDefault", seccomp != nil && seccomp.Type == corev1.SeccompProfileTypeRuntimeDefault)
	check(fmt.Sprintf("fsGroup %d, so the volume is writable for the node", imageUID), ps.FSGroup != nil && *ps.FSGroup == imageUID)
	check("hostNetwork, hostPID, hostIPC off", !p.spec.HostNetwork && !p.spec.HostPID && !p.spec.HostIPC)
}

func isTrue(b *bool) bool { return b != nil && *b }

func uid(container, pod *int64) int64 {
	switch {
	case container != nil:
		return *container
	case pod != nil:
		return *pod
	}
	return -1
}

func TestResources(t *testing.T) {
	_, p := loadPod(t)
	r := p.c.Resources
	cpu, memReq, memLim := r.Requests.Cpu(), r.Requests.Memory(), r.Limits.Memory()
	if cpu.IsZero() || memReq.IsZero() || memLim.IsZero() {
		t.Fatalf("want cpu and memory requests and a memory limit; have requests %v, limits %v", r.Requests, r.Limits)
	}
	if memReq.Cmp(*memLim) > 0 {
		t.Errorf("memory request %s above the limit %s", memReq, memLim)
	}
	for _, e := range p.c.Env {
		if e.Name != "GOMEMLIMIT" {
			continue
		}
		soft, err := resource.ParseQuantity(strings.TrimSuffix(e.Value, "B"))
		if err != nil {
			t.Fatalf("GOMEMLIMIT=%s: %v", e.Value, err)
		}
		if soft.Cmp(*memLim) >= 0 {
			t.Errorf("GOMEMLIMIT=%s is not below the memory limit %s: the runtime would not collect before the kernel kills", e.Value, memLim)
		}
	}
}

// TestDataVolume: the data directory is on the volume claim, in a
// directory of its own inside the image's volume path.
func TestDataVolume(t *testing.T) {
	_, p := loadPod(t)
	dataDir := p.flag(t, "data-dir")
	mount, ok := p.mountOf(dataDir)
	if !ok {
		t.Fatalf("--data-dir=%s is on no volume: the root file system is read-only", dataDir)
	}
	if mount.MountPath != imageVolume || mount.ReadOnly {
		t.Errorf("the data volume is mounted at %s (read-only %v), want %s, the image's VOLUME, writable", mount.MountPath, mount.ReadOnly, imageVolume)
	}
	if filepath.Clean(dataDir) == mount.MountPath {
		t.Errorf("--data-dir=%s is the volume's root: the node chmods its data directory, and a volume's root belongs to root", dataDir)
	}
	var claim bool
	for _, c := range p.sts.Spec.VolumeClaimTemplates {
		claim = claim || c.Name == mount.Name
	}
	if !claim {
		t.Errorf("volume %s holding --data-dir is no volumeClaimTemplate: the data would not survive the pod", mount.Name)
	}
}

// mountOf returns the volume mount holding path.
func (p *pod) mountOf(path string) (corev1.VolumeMount, bool) {
	var best corev1.VolumeMount
	for _, vm := range p.c.VolumeMounts {
		rel, err := filepath.Rel(vm.MountPath, path)
		if err == nil && !strings.HasPrefix(rel, "..") && len(vm.MountPath) > len(best.MountPath) {
			best = vm
		}
	}
	return best, best.Name != ""
}

// TestTokenSecret: the token comes from a file of a Secret the
// manifests make, never from the command line.
func TestTokenSecret(t *testing.T) {
	m, p := loadPod(t)
	for _, f := range p.flags {
		if f.name == "token" {
			t.Error("--token puts the token in the process list: use --token-file")
		}
	}
	file := p.flag(t, "token-file")
	mount, ok := p.mountOf(file)
	if !ok {
		t.Fatalf("--token-file=%s is on no volume", file)
	}
	vol := p.volume(mount.Name)
	if vol == nil || vol.Secret == nil {
		t.Fatalf("--token-file=%s is not on a Secret volume", file)
	}
	key := p.secretKey(vol.Secret, mount, file)
	var found bool
	for _, s := range m.secrets {
		if s.Name == vol.Secret.SecretName {
			_, found = s.Data[key]
		}
	}
	if !found {
		t.Errorf("--token-file=%s is key %q of Secret %s, which the manifests do not make", file, key, vol.Secret.SecretName)
	}
	if mode := vol.Secret.DefaultMode; mode == nil || *mode&0o007 != 0 {
		t.Errorf("the token volume's defaultMode lets others read it")
	}
}

func (p *pod) volume(name string) *corev1.Volume {
	for i := range p.spec.Volumes {
		if p.spec.Volumes[i].Name == name {
			return &p.spec.Volumes[i]
		}
	}
	return nil
}

// secretKey returns the key of Secret volume src that file, mounted by
// vm, holds.
func (p *pod) secretKey(src *corev1.SecretVolumeSource, vm corev1.VolumeMount, file string) string {
	rel, _ := filepath.Rel(vm.MountPath, file)
	for _, it := range src.Items {
		if it.Path == rel {
			return it.Key
		}
	}
	if len(src.Items) > 0 {
		return ""
	}
	return rel
}

func TestImageAndLifecycle(t *testing.T) {
	_, p := loadPod(t)
	if p.c.Image != imageName || p.c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("image %s (pull %s), want %s, IfNotPresent: make image builds it locally, no registry has it", p.c.Image, p.c.ImagePullPolicy, imageName)
	}
	if len(p.c.Command) != 0 {
		t.Errorf("command %q replaces the image's entrypoint, /raftapi: give args only", p.c.Command)
	}
	if g := p.spec.TerminationGracePeriodSeconds; g == nil || *g < 30 {
		t.Error("terminationGracePeriodSeconds under 30 s: a node leaving the cluster on SIGTERM may take 20 s, stopping 10 s more")
	}
}
