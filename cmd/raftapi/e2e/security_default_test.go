package e2e

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// TestSecurityDefaultServe runs `raftapi serve` with no flags at all in a
// fresh working directory: it keeps its data in ./raftapi-data, listens on
// the default ports, prints a kubectl command line that works as printed
// against a verified TLS server, and keeps everything it writes private.
func TestSecurityDefaultServe(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8080", "127.0.0.1:7080"} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("default address %s is taken on this machine (%v): raftapi serve without flags cannot run", addr, err)
		}
		ln.Close()
	}
	work := t.TempDir()
	p, stdout := secServeIn(t, work)

	line := secWaitLine(t, p, stdout, "kubectl --kubeconfig")
	cmdline := strings.Fields(line[strings.Index(line, "kubectl --kubeconfig"):])
	t.Logf("printed: %s", strings.Join(cmdline, " "))
	var out string
	secEventually(t, secFormTimeout, "the printed kubectl command", func() error {
		cmd := exec.Command(cmdline[0], cmdline[1:]...)
		cmd.Dir = work
		b, err := cmd.CombinedOutput()
		out = string(b)
		if err != nil {
			return secWrapOut(err, out)
		}
		// The system namespaces appear once the node has created them.
		for _, ns := range []string{"default", "kube-system"} {
			if !strings.Contains(out, ns) {
				return fmt.Errorf("kubectl get namespaces lists no %s:\n%s", ns, out)
			}
		}
		return nil
	})

	kc := cmdline[2]
	if !filepath.IsAbs(kc) {
		kc = filepath.Join(work, kc)
	}
	secCheckVerifiedKubeconfig(t, kc)
	secCheckPrivate(t, filepath.Join(work, "raftapi-data"))
	if got := strings.TrimSpace(run(t, binary, "token", "--data-dir", filepath.Join(work, "raftapi-data"))); !strings.HasPrefix(got, "K10") || !strings.Contains(got, "::server:") {
		t.Errorf("raftapi token prints %q, want a full K10<hash>::server:<secret> token", got)
	}
}

// TestSecurityDataDirTightened starts a node on a data directory someone
// created open to everyone, holding a world-readable file and directory:
// the node makes it all private before it writes anything there.
func TestSecurityDataDirTightened(t *testing.T) {
	n := secNewNode(t, "loose", false)
	for _, d := range []string{n.data, filepath.Join(n.data, "extra")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(n.data, "extra", "notes"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(n.data, "extra", "notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.start(t)
	secWaitReady(t, n)
	secCheckVerifiedKubeconfig(t, n.kubeconfig(t))
	secCheckPrivate(t, n.data)
}

// secServeIn starts `raftapi serve` without flags in dir; it returns the
// process and the file receiving its standard output (its standard error
// goes to dir/log). The process is stopped at the end of the test.
func secServeIn(t *testing.T, dir string) (process, string) {
	t.Helper()
	stdout := filepath.Join(dir, "stdout")
	outF, err := os.Create(stdout)
	if err != nil {
		t.Fatal(err)
	}
	logF, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	p := process{cmd: exec.Command(binary, "serve"), exited: make(chan struct{})}
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = dir, outF, logF
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); outF.Close(); logF.Close(); close(p.exited) }()
	t.Cleanup(func() {
		if p.running() {
			p.signal(syscall.SIGTERM)
			if !p.waitExit(10 * time.Second) {
				p.kill()
			}
		}
		logTail(t, "raftapi serve", dir)
	})
	return p, stdout
}

// secWaitLine waits for a line containing want in file, written by p.
func secWaitLine(t *testing.T, p process, file, want string) string {
	t.Helper()
	var line string
	secEventually(t, secFormTimeout, "stdout line with "+want, func() error {
		b, _ := os.ReadFile(file)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, want) {
				line = l
				return nil
			}
		}
		if !p.running() {
			log, _ := os.ReadFile(filepath.Join(filepath.Dir(file), "log"))
			if strings.Contains(string(log), "address already in use") {
				// Another process took a default port after the check.
				t.Skipf("a default port was taken meanwhile: %s", tail(string(log), 300))
			}
			return secFatal{secWrapOut(os.ErrProcessDone, string(b)+string(log))}
		}
		return os.ErrNotExist
	})
	return line
}

// secCheckVerifiedKubeconfig checks that a kubeconfig makes clients verify
// the server with a CA and authenticate with a certificate, and that only
// its owner may read it.
func secCheckVerifiedKubeconfig(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, fi.Mode().Perm())
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || cfg.Clusters[ctx.Cluster] == nil || cfg.AuthInfos[ctx.AuthInfo] == nil {
		t.Fatalf("%s: current context %q is incomplete", path, cfg.CurrentContext)
	}
	c, u := cfg.Clusters[ctx.Cluster], cfg.AuthInfos[ctx.AuthInfo]
	if c.InsecureSkipTLSVerify || len(c.CertificateAuthorityData) == 0 || !strings.HasPrefix(c.Server, "https://") {
		t.Errorf("%s does not verify the server: server %s, insecure %v, %d bytes of CA", path, c.Server, c.InsecureSkipTLSVerify, len(c.CertificateAuthorityData))
	}
	if len(u.ClientCertificateData) == 0 || len(u.ClientKeyData) == 0 {
		t.Errorf("%s holds no client certificate", path)
	}
}

// secCheckPrivate checks that dir and everything in it is for its owner
// only: directories 0700, files 0600.
func secCheckPrivate(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		switch {
		case fi.IsDir():
			want = 0o700
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d entries under %s checked", n, dir)
}

// secOutError is a command's error with its output.
type secOutError struct {
	err error
	out string
}

func (e secOutError) Error() string { return e.err.Error() + ": " + tail(e.out, 2000) }

func secWrapOut(err error, out string) error { return secOutError{err, out} }
