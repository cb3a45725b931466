package systemd

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	unitFile   = "raftapi.service"
	envExample = "raftapi.env.example"
	// installedBin is where make install puts the binary (PREFIX=/usr/local).
	installedBin = "/usr/local/bin/raftapi"
	stateDir     = "/var/lib/raftapi"
)

// unit is a parsed unit file: section -> key -> every value assigned, in
// order (an empty value resets a list setting, as in systemd).
type unit map[string]map[string][]string

func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := unit{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: %q is no key=value in a section", path, n, line)
			}
			u[section][key] = append(u[section][key], value)
		}
	}
	return u
}

// get returns the last value of key in [Service].
func (u unit) get(key string) string {
	v := u["Service"][key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// execStart returns the words of ExecStart.
func (u unit) execStart(t *testing.T) []string {
	t.Helper()
	v := u["Service"]["ExecStart"]
	if len(v) != 1 {
		t.Fatalf("ExecStart given %d times, want once", len(v))
	}
	return strings.Fields(v[0])
}

// flagValue returns the value of --name in args ("--name value" or
// "--name=value").
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
		if a == "--"+name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// flagNames returns the names of the --flags in args.
func flagNames(args []string) []string {
	var out []string
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			out = append(out, name)
		}
	}
	return out
}

// systemdDuration parses the time spans the tests use: 5s, 45s, 15min.
func systemdDuration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(strings.Replace(s, "min", "m", 1))
	if err != nil {
		t.Fatalf("time span %q: %v", s, err)
	}
	return d
}

func systemdAnalyze(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (make test-deploy installs Debian's systemd package): the unit is not verified")
	}
	return p
}

// verify runs systemd-analyze verify on a copy of unit text whose
// ExecStart runs bin (verify requires an executable), and returns the
// lines of its output about the unit. Others are logged.
func verify(t *testing.T, text, bin string) []string {
	t.Helper()
	analyze := systemdAnalyze(t)
	path := filepath.Join(t.TempDir(), unitFile)
	text = strings.Replace(text, "ExecStart="+installedBin+" ", "ExecStart="+bin+" ", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	var about []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch {
		case line == "":
		case strings.Contains(line, unitFile) || strings.Contains(line, path):
			about = append(about, line)
		default:
			t.Logf("systemd-analyze verify, not about the unit: %s", line)
		}
	}
	if err != nil && len(about) == 0 {
		about = append(about, "systemd-analyze verify: "+err.Error()+": "+string(out))
	}
	return about
}

func readUnit(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUnitVerifies: systemd-analyze verify has nothing to say about the
// unit (it exits 0 on unknown keys and bad values; its output is what
// tells).
func TestUnitVerifies(t *testing.T) {
	systemdAnalyze(t) // skip before building a binary
	if msgs := verify(t, readUnit(t), raftapiBinary(t)); len(msgs) > 0 {
		t.Errorf("systemd-analyze verify %s:\n%s", unitFile, strings.Join(msgs, "\n"))
	}
}

// TestVerifyCatchesMistakes shows that the check above fails on a
// mistake systemd only warns about.
func TestVerifyCatchesMistakes(t *testing.T) {
	systemdAnalyze(t)
	bin := raftapiBinary(t)
	for _, tc := range []struct{ name, from, to string }{
		{"unknown key", "NotifyAccess=main", "NotifyAcess=main"},
		{"bad value", "Type=notify", "Type=notfy"},
		{"unknown specifier", "%d/token", "%Q/token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := readUnit(t)
			if !strings.Contains(text, tc.from) {
				t.Fatalf("the unit has no %q", tc.from)
			}
			msgs := verify(t, strings.Replace(text, tc.from, tc.to, 1), bin)
			if len(msgs) == 0 {
				t.Errorf("verify is silent about %s", tc.to)
			}
			t.Logf("verify says: %s", strings.Join(msgs, " | "))
		})
	}
}

func TestUnitSettings(t *testing.T) {
	u := parseUnit(t, unitFile)
	for key, want := range map[string]string{
		"Type":            "notify",
		"NotifyAccess":    "main",
		"Restart":         "on-failure",
		"EnvironmentFile": "-/etc/raftapi/raftapi.env",
		"DynamicUser":     "yes",
		"User":            "raftapi",
		"StateDirectory":  "raftapi",
		"LoadCredential":  "token:/etc/raftapi/token",
	} {
		if got := u.get(key); got != want {
			t.Errorf("%s=%s, want %s", key, got, want)
		}
	}
	for key, min := range map[string]time.Duration{
		"RestartSec":      time.Second,
		"TimeoutStartSec": 5 * time.Minute,  // a node waits for the others
		"TimeoutStopSec":  30 * time.Second, // leave (20 s), then stop (10 s)
	} {
		if got := systemdDuration(t, u.get(key)); got < min {
			t.Errorf("%s=%s, want at least %s", key, u.get(key), min)
		}
	}
	if n, err := strconv.Atoi(u.get("LimitNOFILE")); err != nil || n < 65536 {
		t.Errorf("LimitNOFILE=%s, want at least 65536: every watch and peer is a descriptor", u.get("LimitNOFILE"))
	}
	args := u.execStart(t)
	if args[0] != installedBin || len(args) < 2 || args[1] != "serve" {
		t.Errorf("ExecStart=%s, want %s serve ...", strings.Join(args, " "), installedBin)
	}
	if v, _ := flagValue(args, "data-dir"); v != stateDir {
		t.Errorf("--data-dir %s, want %s, the StateDirectory", v, stateDir)
	}
	if v, _ := flagValue(args, "token-file"); v != "%d/token" {
		t.Errorf("--token-file %s, want %%d/token, the LoadCredential", v)
	}
}

// hardening is what the unit must set, and to what.
var hardening = map[string]string{
	"NoNewPrivileges":         "yes",
	"ProtectSystem":           "strict",
	"ProtectHome":             "yes",
	"PrivateTmp":              "yes",
	"PrivateDevices":          "yes",
	"ProtectKernelTunables":   "yes",
	"ProtectKernelModules":    "yes",
	"ProtectKernelLogs":       "yes",
	"ProtectControlGroups":    "yes",
	"RestrictNamespaces":      "yes",
	"LockPersonality":         "yes",
	"MemoryDenyWriteExecute":  "yes",
	"SystemCallArchitectures": "native",
	"CapabilityBoundingSet":   "",
	"UMask":                   "0077",
}

func TestUnitHardening(t *testing.T) {
	u := parseUnit(t, unitFile)
	for key, want := range hardening {
		if _, ok := u["Service"][key]; !ok || u.get(key) != want {
			t.Errorf("%s=%s (set: %v), want %s=%s", key, u.get(key), ok, key, want)
		}
	}
	families := strings.Fields(u.get("RestrictAddressFamilies"))
	allowed := map[string]bool{}
	for _, f := range families {
		allowed[f] = true
	}
	for _, f := range []string{"AF_INET", "AF_INET6", "AF_UNIX"} {
		if !allowed[f] {
			t.Errorf("RestrictAddressFamilies=%s lacks %s (AF_UNIX: the readiness notification)", u.get("RestrictAddressFamilies"), f)
		}
	}
	for f := range allowed {
		if f != "AF_INET" && f != "AF_INET6" && f != "AF_UNIX" && f != "AF_NETLINK" {
			t.Errorf("RestrictAddressFamilies allows %s, which raftapi does not use", f)
		}
	}
}

// exposure matches the last line of systemd-analyze security.
var exposure = regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`)

// maxExposure is the worst systemd-analyze security score the unit may
// have (0 is best, 10 worst). A network server cannot lose the points for
// its network access (PrivateNetwork, address families, IPAddressDeny).
const maxExposure = 2.0

// TestUnitSecurityExposure logs systemd-analyze security's score of the
// unit, read offline, and fails if hardening was lost.
func TestUnitSecurityExposure(t *testing.T) {
	analyze := systemdAnalyze(t)
	out, err := exec.Command(analyze, "security", "--offline=true", unitFile).CombinedOutput()
	m := exposure.FindSubmatch(out)
	if m == nil {
		t.Skipf("systemd-analyze security --offline=true gives no score here (%v): %s", err, out)
	}
	score, _ := strconv.ParseFloat(string(m[1]), 64)
	t.Logf("systemd-analyze security %s: exposure %.1f (0 best, 10 worst)", unitFile, score)
	if score > maxExposure {
		t.Errorf("exposure %.1f above %.1f:\n%s", score, maxExposure, out)
	}
}

// TestFlagsAndVariablesExist: every flag of ExecStart and every RAFTAPI_*
// variable of the example environment file is a flag of raftapi serve.
func TestFlagsAndVariablesExist(t *testing.T) {
	known := serveFlags(t)
	for _, f := range flagNames(parseUnit(t, unitFile).execStart(t)) {
		if !known[f] {
			t.Errorf("ExecStart: --%s is not a flag of raftapi serve", f)
		}
	}
	vars := readEnvFile(t, envExample)
	for name := range vars {
		flag := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, "RAFTAPI_"), "_", "-"))
		if !strings.HasPrefix(name, "RAFTAPI_") || !known[flag] {
			t.Errorf("%s: %s is no RAFTAPI_<FLAG> of a flag of raftapi serve", envExample, name)
		}
	}
	for _, name := range []string{"RAFTAPI_DATA_DIR", "RAFTAPI_TOKEN", "RAFTAPI_TOKEN_FILE"} {
		if _, ok := vars[name]; ok {
			t.Errorf("%s sets %s, which the unit sets (or which conflicts with its --token-file)", envExample, name)
		}
	}
}

// readEnvFile reads KEY=VALUE lines as systemd's EnvironmentFile= does
// (no quoting used here).
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: %q is no KEY=VALUE", path, line)
		}
		vars[k] = v
	}
	return vars
}
