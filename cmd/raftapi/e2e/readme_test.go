package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeSections are the README sections TestREADME runs, in order, as
// one shell session: the "Running" section's own text (its gossip
// subsection is an alternative to the static cluster, on the same ports)
// and the whole "Operations" section, which works on the cluster Running
// started.
var readmeSections = []readmeSection{
	{heading: "Running"},
	{heading: "Operations", subsections: true},
}

// readmeTimeout bounds the whole walkthrough.
const readmeTimeout = 100 * time.Second

// TestREADME runs the README's walkthrough as written: the ```sh blocks of
// readmeSections, in order, in one bash session (set -euo pipefail) in a
// temporary directory where bin/raftapi and raftapi are the binary under
// test. The harness changes only three kinds of line: make lines are
// no-ops (the binary is built), "go run ./cmd/raftapi" is bin/raftapi, and
// a "raftapi serve" line starts the server in the background and waits
// until it answers /livez; the next line that is not a serve line first
// waits until every server started since answers /readyz. Everything runs
// in a new network namespace, because the README uses fixed ports.
func TestREADME(t *testing.T) {
	for _, tool := range []string{"ip", "bash", "curl", "kubectl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("TestREADME needs %s on PATH: %v", tool, err)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("TestREADME runs the README in a network namespace of its own: it needs root")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []shBlock
	for _, s := range readmeSections {
		bs := s.blocks(string(readme))
		if len(bs) == 0 {
			t.Fatalf("README.md: no ```sh block in section %q", s.heading)
		}
		blocks = append(blocks, bs...)
	}
	dir := t.TempDir()
	w := newWalkthrough(t, dir)
	script, cmds := readmeScript(blocks)
	w.run(t, script, cmds)
}

// readmeSection names a README section by its heading's text.
type readmeSection struct {
	heading string
	// subsections includes the blocks of the headings nested under it.
	subsections bool
}

// shBlock is one ```sh code block: its lines and the README line number
// of the first.
type shBlock struct {
	section string
	line    int
	lines   []string
}

var headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*$`)

// blocks returns the ```sh blocks of section s in readme.
func (s readmeSection) blocks(readme string) []shBlock {
	var (
		out            []shBlock
		level          int // heading level of s while inside it, else 0
		fence, inBlock bool
		cur            *shBlock
	)
	for i, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "```") {
			switch {
			case fence && inBlock:
				out = append(out, *cur)
				cur = nil
			case !fence && level > 0 && strings.TrimSpace(line) == "```sh":
				cur = &shBlock{section: s.heading, line: i + 2}
			}
			inBlock = !fence && cur != nil
			fence = !fence
			continue
		}
		if fence {
			if inBlock {
				cur.lines = append(cur.lines, line)
			}
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch l := len(m[1]); {
		case m[2] == s.heading:
			level = l
		case level > 0 && (l <= level || !s.subsections):
			level = 0
		}
	}
	return out
}

// readmePreamble defines the harness's shell functions. readme_serve runs
// "raftapi serve ARGS" in the background (log in $README_LOGS) and waits
// for /livez; readme_ready waits for /readyz of every server started since
// the last call. A server's data directory and API address come from its
// flags, else RAFTAPI_DATA_DIR and RAFTAPI_LISTEN, else its
// --config-file, else the defaults: the harness waits for the admin
// kubeconfig in the first and polls the second.
const readmePreamble = `set -euo pipefail
readme_pending=()
readme_n=0
readme_line() { printf '>>> README.md:%s\n' "$1"; }
readme_cfg() { sed -n "s/^$1:[[:space:]]*//p" "$2" | tr -d "\"'" | tail -n 1; }
readme_serve() {
  local dir=${RAFTAPI_DATA_DIR:-} listen=${RAFTAPI_LISTEN:-} cfg=${RAFTAPI_CONFIG_FILE:-} prev= a
  for a in "$@"; do
    case $prev in --data-dir) dir=$a ;; --listen) listen=$a ;; --config-file) cfg=$a ;; esac
    case $a in --data-dir=*) dir=${a#*=} ;; --listen=*) listen=${a#*=} ;; --config-file=*) cfg=${a#*=} ;; esac
    prev=$a
  done
  if [[ -n $cfg ]]; then
    [[ -n $dir ]] || dir=$(readme_cfg data-dir "$cfg")
    [[ -n $listen ]] || listen=$(readme_cfg listen "$cfg")
  fi
  dir=${dir:-raftapi-data} listen=${listen:-127.0.0.1:8080}
  readme_n=$((readme_n + 1))
  local log=$README_LOGS/serve-$readme_n.log
  "$README_BIN" serve "$@" >"$log" 2>&1 &
  local pid=$!
  echo "$pid" >>"$README_LOGS/pids"
  echo "(harness: raftapi serve started, pid $pid, log serve-$readme_n.log; waiting for https://$listen/livez)"
  readme_pending+=("$pid|$dir|$listen|$log")
  readme_wait "$pid" "$dir" "$listen" "$log" livez
}
readme_wait() {
  local pid=$1 dir=$2 listen=$3 log=$4 check=$5 deadline=$((SECONDS + 60))
  until [[ -f $dir/admin.kubeconfig && $(curl -sk --max-time 2 "https://$listen/$check" 2>/dev/null) == ok ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "(harness: raftapi serve pid $pid exited before its /$check answered ok; its log:)"
      tail -n 40 "$log"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      echo "(harness: https://$listen/$check of pid $pid not ok within 60s; its log:)"
      tail -n 40 "$log"
      return 1
    fi
    sleep 0.1
  done
}
readme_ready() {
  local p pid dir listen log
  for p in "${readme_pending[@]}"; do
    IFS='|' read -r pid dir listen log <<<"$p"
    readme_wait "$pid" "$dir" "$listen" "$log" readyz
  done
  readme_pending=()
}
`

var (
	// envPrefixRE matches the VAR=value assignments before a command.
	envPrefixRE = regexp.MustCompile(`(?s)^((?:[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+)*)(.*)$`)
	serveRE     = regexp.MustCompile(`^(?:bin/)?raftapi\s+serve\b`)
	heredocRE   = regexp.MustCompile(`<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?`)
)

// readmeScript turns the blocks into one bash script: the preamble, then
// each command of each block, announced by readme_line with its README
// line number and rewritten as TestREADME says. It returns the commands
// too.
func readmeScript(blocks []shBlock) (string, []shCommand) {
	var (
		b    strings.Builder
		cmds []shCommand
	)
	b.WriteString(readmePreamble)
	for _, blk := range blocks {
		fmt.Fprintf(&b, "\n# README.md:%d, section %q\n", blk.line, blk.section)
		for _, c := range shCommands(blk) {
			fmt.Fprintf(&b, "readme_line %d\n%s\n", c.line, rewriteCommand(c.text))
			cmds = append(cmds, c)
		}
	}
	return b.String(), cmds
}

// shCommand is one command of a block: its lines joined (continuation
// lines, here-documents) and its README line number.
type shCommand struct {
	line int
	text string
}

// shCommands splits a block into commands, skipping blank and comment
// lines.
func shCommands(blk shBlock) []shCommand {
	var out []shCommand
	for i := 0; i < len(blk.lines); i++ {
		first := strings.TrimSpace(blk.lines[i])
		if first == "" || strings.HasPrefix(first, "#") {
			continue
		}
		c := shCommand{line: blk.line + i, text: blk.lines[i]}
		for strings.HasSuffix(blk.lines[i], `\`) && i+1 < len(blk.lines) {
			i++
			c.text += "\n" + blk.lines[i]
		}
		if m := heredocRE.FindStringSubmatch(c.text); m != nil {
			for i+1 < len(blk.lines) {
				i++
				c.text += "\n" + blk.lines[i]
				if strings.TrimLeft(blk.lines[i], "\t") == m[1] {
					break
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// rewriteCommand maps a README command to what the harness runs.
func rewriteCommand(cmd string) string {
	trimmed := strings.TrimSpace(cmd)
	if trimmed == "make" || strings.HasPrefix(trimmed, "make ") {
		return ": # the harness runs the binary under test ($README_BIN): no make"
	}
	cmd = strings.Replace(cmd, "go run ./cmd/raftapi", "bin/raftapi", 1)
	m := envPrefixRE.FindStringSubmatch(strings.TrimLeft(cmd, " \t"))
	if loc := serveRE.FindStringIndex(m[2]); loc != nil {
		return m[1] + "readme_serve" + m[2][loc[1]:]
	}
	return "readme_ready\n" + cmd
}

// walkthrough is the temporary directory and network namespace a README
// walkthrough runs in.
type walkthrough struct {
	dir, logs, netns, bin string
}

// newWalkthrough prepares dir (bin/raftapi, the logs folder) and a new
// network namespace with loopback up; t.Cleanup kills the servers the
// walkthrough started and deletes the namespace.
func newWalkthrough(t *testing.T, dir string) *walkthrough {
	bin, err := filepath.Abs(binary)
	if err == nil {
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		t.Fatal(err)
	}
	w := &walkthrough{dir: dir, logs: filepath.Join(dir, "harness"), bin: bin}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "raftapi")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(w.logs, 0o755); err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	w.netns = "raftapi-readme-" + hex.EncodeToString(suffix)
	if out, err := exec.Command("ip", "netns", "add", w.netns).CombinedOutput(); err != nil {
		t.Skipf("TestREADME needs a network namespace of its own: ip netns add: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", w.netns).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", w.netns, err, out)
		}
	})
	if out, err := exec.Command("ip", "netns", "exec", w.netns, "ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("ip link set lo up in %s: %v: %s", w.netns, err, out)
	}
	t.Cleanup(func() { w.killServers(t) })
	return w
}

// run runs script with bash in the namespace and fails t with the README
// line that failed and its output.
func (w *walkthrough) run(t *testing.T, script string, cmds []shCommand) {
	scriptPath := filepath.Join(w.logs, "walkthrough.sh")
	transcriptPath := filepath.Join(w.logs, "transcript")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	transcript, err := os.Create(transcriptPath)
	if err != nil {
		t.Fatal(err)
	}
	defer transcript.Close()
	ctx, cancel := context.WithTimeout(context.Background(), readmeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", "netns", "exec", w.netns, "bash", scriptPath)
	cmd.Dir, cmd.Env = w.dir, w.env()
	cmd.Stdout, cmd.Stderr = transcript, transcript
	// ip netns exec execs bash: its group holds bash and every server it
	// starts, and the timeout kills that group only.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	runErr := cmd.Run()
	out, _ := os.ReadFile(transcriptPath)
	steps := parseTranscript(string(out), cmds)
	t.Logf("README walkthrough: %d commands in %v", len(steps), time.Since(start).Round(time.Millisecond))
	for _, s := range steps {
		t.Logf("README.md:%d: $ %s\n%s", s.line, s.text, s.output)
	}
	if runErr == nil {
		return
	}
	if ctx.Err() != nil {
		runErr = fmt.Errorf("%w: the walkthrough took longer than %v", runErr, readmeTimeout)
	}
	w.logServers(t)
	if len(steps) == 0 {
		t.Fatalf("the walkthrough failed before its first README line: %v\n%s", runErr, out)
	}
	last := steps[len(steps)-1]
	t.Fatalf("README.md:%d failed: %v\n$ %s\n%s", last.line, runErr, last.text, last.output)
}

// env is the walkthrough's environment: this one without KUBECONFIG and
// RAFTAPI_* (the README's defaults apply), with bin/ first on PATH, HOME
// in the temporary directory and the harness's variables.
func (w *walkthrough) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "KUBECONFIG", k == "HOME", strings.HasPrefix(k, "RAFTAPI_"):
		case k == "PATH":
			env = append(env, "PATH="+filepath.Join(w.dir, "bin")+":"+v)
		default:
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+w.dir, "README_LOGS="+w.logs, "README_BIN="+w.bin)
}

// readmeStep is one README command the walkthrough reached, with its
// output.
type readmeStep struct {
	shCommand
	output string
}

var markerRE = regexp.MustCompile(`^>>> README\.md:(\d+)$`)

// parseTranscript splits the walkthrough's output at readme_line's
// markers.
func parseTranscript(out string, cmds []shCommand) []readmeStep {
	byLine := map[int]shCommand{}
	for _, c := range cmds {
		byLine[c.line] = c
	}
	var steps []readmeStep
	for _, line := range strings.SplitAfter(out, "\n") {
		if m := markerRE.FindStringSubmatch(strings.TrimSuffix(line, "\n")); m != nil {
			n, _ := strconv.Atoi(m[1])
			steps = append(steps, readmeStep{shCommand: byLine[n]})
			continue
		}
		if len(steps) > 0 {
			steps[len(steps)-1].output += line
		}
	}
	return steps
}

// pids returns the servers the walkthrough started.
func (w *walkthrough) pids() []int {
	b, _ := os.ReadFile(filepath.Join(w.logs, "pids"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// killServers kills the servers the walkthrough started that still run
// (a pid counts only while it is still the binary under test) and waits
// for them to go.
func (w *walkthrough) killServers(t *testing.T) {
	var alive []int
	for _, pid := range w.pids() {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe == w.bin {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			alive = append(alive, pid)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range alive {
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if running(pid) {
			t.Errorf("raftapi serve pid %d still runs 10s after SIGKILL", pid)
		}
	}
}

// running reports whether pid is a process that has not exited (a zombie
// has).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// logServers logs the end of every server's log.
func (w *walkthrough) logServers(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join(w.logs, "serve-*.log"))
	for _, l := range logs {
		if b, err := os.ReadFile(l); err == nil {
			t.Logf("%s:\n%s", filepath.Base(l), tail(string(b), 3000))
		}
	}
}

// TestREADMEScript checks how the harness reads and rewrites a README,
// without running it.
func TestREADMEScript(t *testing.T) {
	readme := strings.Join([]string{
		"# title",    // 1
		"## Running", // 2
		"```sh",      // 3
		"make build", // 4
		"go run ./cmd/raftapi serve   # one node", // 5
		"```",                                // 6
		"### Gossip",                         // 7
		"```sh",                              // 8
		"bin/raftapi serve --join x",         // 9
		"```",                                // 10
		"## Operations",                      // 11
		"```yaml",                            // 12
		"## not a heading",                   // 13
		"```",                                // 14
		"### Backup",                         // 15
		"```sh",                              // 16
		"# a comment",                        // 17
		"bin/raftapi snapshot save b.db \\",  // 18
		"  --kubeconfig d1/admin.kubeconfig", // 19
		"cat > c.yaml <<'EOF'",               // 20
		"name: r1",                           // 21
		"EOF",                                // 22
		"RAFTAPI_LOG_LEVEL=warn bin/raftapi serve --config-file c.yaml", // 23
		"```",         // 24
		"## Security", // 25
		"```sh",       // 26
		"echo no",     // 27
		"```",         // 28
	}, "\n")
	var blocks []shBlock
	for _, s := range readmeSections {
		blocks = append(blocks, s.blocks(readme)...)
	}
	var got []string
	for _, b := range blocks {
		for _, c := range shCommands(b) {
			got = append(got, fmt.Sprintf("%d: %s", c.line, rewriteCommand(c.text)))
		}
	}
	want := []string{
		"4: : # the harness runs the binary under test ($README_BIN): no make",
		"5: readme_serve   # one node",
		"18: readme_ready\nbin/raftapi snapshot save b.db \\\n  --kubeconfig d1/admin.kubeconfig",
		"20: readme_ready\ncat > c.yaml <<'EOF'\nname: r1\nEOF",
		"23: RAFTAPI_LOG_LEVEL=warn readme_serve --config-file c.yaml",
	}
	if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
	}

	_, cmds := readmeScript(blocks)
	steps := parseTranscript(">>> README.md:4\n>>> README.md:5\nstarted\n>>> README.md:18\nsaved\nsecond line\n", cmds)
	if len(steps) != 3 || steps[2].line != 18 || steps[2].output != "saved\nsecond line\n" || steps[1].output != "started\n" {
		t.Errorf("parseTranscript: %+v", steps)
	}
}
