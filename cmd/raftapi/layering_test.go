package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// layerRule is one row of the dependency rules in DESIGN.md ("Layout"):
// which of the module's own packages the packages under from may import.
// Paths are relative to the module root and cover their sub-packages;
// imports from outside the module are not checked.
type layerRule struct {
	from   string
	allow  []string // when non-nil, the only own packages from may import
	forbid []string // own packages from must not import
	tests  bool     // whether the imports of from's _test.go files count too
	why    string
}

// serverPackages are the server's internals.
var serverPackages = []string{"fsm", "raftstore", "api", "cluster"}

// layeringRules is the table. cmd/... may import anything, apart from
// cmd/raftapi/e2e, which has its own row.
var layeringRules = []layerRule{
	{from: "fsm", allow: []string{"fsm"},
		why: "the state machine is the bottom layer: deterministic, knows neither raft nor HTTP"},
	{from: "raftstore", allow: []string{"raftstore", "fsm"},
		why: "the store drives the state machine and knows nothing of HTTP"},
	{from: "api", allow: []string{"api", "raftstore"},
		why: "the API reaches state only through the store's facade, never bbolt or the state machine"},
	{from: "api/registry", forbid: []string{"api/handlers", "api/controllers"},
		why: "the rules of each verb sit below the HTTP adapters and the controllers that use them"},
	{from: "api/apiextensions", forbid: []string{"api/handlers", "api/controllers"},
		why: "custom resources are descriptions, schemas and strategies that the registry and handlers serve like any other resource"},
	{from: "api/controllers", forbid: []string{"api/handlers"},
		why: "controllers are clients of the registry, not of the HTTP layer"},
	{from: "pki", allow: []string{"pki"},
		why: "a cluster's credentials are what any holder of its token derives: node, harness, test or tool"},
	{from: "cluster", allow: []string{"cluster", "api", "raftstore", "pki"},
		why: "a node wires store and API together; the state machine stays behind the store"},
	{from: "chaos", forbid: serverPackages, tests: true,
		why: "the chaos harness tests the product from outside: processes, network, the public HTTP API"},
	{from: "cmd/raftapi/e2e", forbid: serverPackages, tests: true,
		why: "end-to-end tests drive the real binary through its public HTTP API"},
}

// TestLayering fails for every import among the module's packages that
// points against layeringRules.
func TestLayering(t *testing.T) {
	module, pkgs := listPackages(t)
	for _, v := range violations(layeringRules, module, pkgs) {
		t.Error(v)
	}
	for _, r := range layeringRules {
		if !coversAny(r, module, pkgs) {
			t.Logf("no package under %s yet; its rule waits for one", r.from)
		}
	}
}

// TestLayeringRules runs the check on made-up packages, so each rule is
// exercised whether or not the tree has such a package today.
func TestLayeringRules(t *testing.T) {
	tests := []struct {
		name    string
		pkg     string
		imports []string
		testImp []string
		want    string // the one violation expected; "" for none
	}{
		{"fsm on raftstore", "fsm", []string{"raftstore"}, nil, "fsm imports raftstore"},
		{"fsm within itself", "fsm/codec", []string{"fsm"}, nil, ""},
		{"other modules are not checked", "fsm", []string{"go.etcd.io/bbolt"}, nil, ""},
		{"raftstore on api", "raftstore", []string{"api"}, nil, "raftstore imports api"},
		{"raftstore on fsm", "raftstore/storetest", []string{"fsm", "raftstore"}, nil, ""},
		{"api on fsm", "api/registry", []string{"fsm"}, nil, "api/registry imports fsm"},
		{"api on cluster", "api", []string{"cluster"}, nil, "api imports cluster"},
		{"api on raftstore", "api/handlers", []string{"raftstore/storetest", "api/registry"}, nil, ""},
		{"registry on handlers", "api/registry/core", []string{"api/handlers/watch"}, nil, "api/registry/core imports api/handlers/watch"},
		{"registry on controllers", "api/registry", []string{"api/controllers"}, nil, "api/registry imports api/controllers"},
		{"controllers on handlers", "api/controllers/gc", []string{"api/handlers"}, nil, "api/controllers/gc imports api/handlers"},
		{"controllers on registry", "api/controllers/gc", []string{"api/registry"}, nil, ""},
		{"cluster on fsm", "cluster", []string{"fsm"}, nil, "cluster imports fsm"},
		{"cluster on chaos", "cluster", []string{"chaos"}, nil, "cluster imports chaos"},
		{"chaos on api", "chaos/nodes", []string{"api/resource"}, nil, "chaos/nodes imports api/resource"},
		{"chaos test on cluster", "chaos/check", nil, []string{"cluster"}, "chaos/check imports cluster in a _test.go file"},
		{"e2e test on raftstore", "cmd/raftapi/e2e", nil, []string{"raftstore"}, "cmd/raftapi/e2e imports raftstore in a _test.go file"},
		{"cmd on anything", "cmd/raftapi", []string{"cluster", "fsm", "chaos"}, nil, ""},
	}
	const module = "example.com/m"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := listedPackage{ImportPath: module + "/" + tt.pkg, Imports: ownPaths(module, tt.imports), XTestImports: ownPaths(module, tt.testImp)}
			got := violations(layeringRules, module, []listedPackage{p})
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("unexpected violations: %q", got)
			case tt.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tt.want+": ")):
				t.Errorf("violations %q, want one starting %q", got, tt.want)
			}
		})
	}
}

// ownPaths turns module-relative paths into import paths; paths with a dot
// in their first element stand for other modules and are kept.
func ownPaths(module string, rel []string) []string {
	var out []string
	for _, r := range rel {
		if first, _, _ := strings.Cut(r, "/"); strings.Contains(first, ".") {
			out = append(out, r)
			continue
		}
		out = append(out, module+"/"+r)
	}
	return out
}

// listedPackage is the part of `go list -json` output the check reads.
type listedPackage struct {
	ImportPath   string
	Module       *struct{ Path string }
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// violations returns one message per import in pkgs that breaks one of
// rules. module is the module path.
func violations(rules []layerRule, module string, pkgs []listedPackage) []string {
	var out []string
	for _, p := range pkgs {
		from, ok := ownPath(module, p.ImportPath)
		if !ok {
			continue
		}
		for _, r := range rules {
			if within(from, r.from) {
				out = append(out, r.check(module, from, p)...)
			}
		}
	}
	return out
}

// check returns a message for each import of p, at module-relative path
// from, that breaks r.
func (r layerRule) check(module, from string, p listedPackage) []string {
	var out []string
	for i, imports := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
		if i > 0 && !r.tests {
			break
		}
		where := ""
		if i > 0 {
			where = " in a _test.go file"
		}
		for _, imp := range imports {
			if dep, ok := ownPath(module, imp); ok && r.breaks(dep) {
				out = append(out, fmt.Sprintf("%s imports %s%s: %s", from, dep, where, r))
			}
		}
	}
	return out
}

// breaks reports whether importing the module-relative package dep breaks r.
func (r layerRule) breaks(dep string) bool {
	if r.allow != nil && !withinAny(dep, r.allow) {
		return true
	}
	return withinAny(dep, r.forbid)
}

// String states the rule and its reason.
func (r layerRule) String() string {
	if r.allow != nil {
		return fmt.Sprintf("%s may import only %s (%s)", r.from, strings.Join(r.allow, ", "), r.why)
	}
	return fmt.Sprintf("%s must not import %s (%s)", r.from, strings.Join(r.forbid, ", "), r.why)
}

// coversAny reports whether some package in pkgs falls under r.
func coversAny(r layerRule, module string, pkgs []listedPackage) bool {
	for _, p := range pkgs {
		if rel, ok := ownPath(module, p.ImportPath); ok && within(rel, r.from) {
			return true
		}
	}
	return false
}

// ownPath returns importPath relative to module, and whether it is in it.
func ownPath(module, importPath string) (string, bool) {
	if importPath == module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(importPath, module+"/")
	return rel, ok
}

// within reports whether the module-relative path rel is dir or below it.
func within(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

// withinAny reports whether rel is within one of dirs.
func withinAny(rel string, dirs []string) bool {
	for _, d := range dirs {
		if within(rel, d) {
			return true
		}
	}
	return false
}

// listPackages runs `go list` on every package of the module holding the
// test and returns the module path and the packages. A package whose
// imports cannot be read fails the test, since the check would miss them.
func listPackages(t *testing.T) (string, []listedPackage) {
	t.Helper()
	goCmd := goCommand(t)
	gomod := strings.TrimSpace(goOutput(t, ".", goCmd, "env", "GOMOD"))
	if gomod == "" || gomod == "/dev/null" {
		t.Fatalf("not inside a module (go env GOMOD = %q)", gomod)
	}
	out := goOutput(t, filepath.Dir(gomod), goCmd, "list", "-e",
		"-json=ImportPath,Module,Imports,TestImports,XTestImports,Error", "./...")
	pkgs, err := decodePackages(out)
	if err != nil {
		t.Fatalf("go list output: %v", err)
	}
	for _, p := range pkgs {
		if p.Error != nil {
			t.Errorf("cannot check %s: %s", p.ImportPath, p.Error.Err)
		}
	}
	if len(pkgs) == 0 || pkgs[0].Module == nil {
		t.Fatal("go list found no packages in a module")
	}
	return pkgs[0].Module.Path, pkgs
}

// decodePackages decodes the stream of JSON objects `go list -json` prints.
func decodePackages(out string) ([]listedPackage, error) {
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
}

// goOutput runs the go command with args in dir and returns its stdout.
func goOutput(t *testing.T, dir, goCmd string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}
