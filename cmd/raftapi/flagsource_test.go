package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// flagTarget is a command with flags of each kind serve has.
func flagTarget(t *testing.T) (*cobra.Command, map[string]*string) {
	t.Helper()
	cmd := &cobra.Command{Use: "serve"}
	vals := map[string]*string{}
	for _, name := range []string{"name", "data-dir", "join", "token"} {
		vals[name] = cmd.Flags().String(name, "default-"+name, "")
	}
	cmd.Flags().Bool("insecure-http", false, "")
	cmd.Flags().Int("bootstrap-expect", 0, "")
	cmd.Flags().Duration("history-retention", 0, "")
	cmd.Flags().String(configFileFlag, "", "")
	return cmd, vals
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFlagSourcesPrecedence: the command line wins over the environment,
// which wins over the config file, which wins over the default.
func TestFlagSourcesPrecedence(t *testing.T) {
	cfg := writeConfig(t, `
name: from-file
data-dir: from-file
join: [10.0.0.1:7946, 10.0.0.2:7946]
token: from-file
insecure-http: true
bootstrap-expect: 3
history-retention: 10m
`)
	t.Setenv("RAFTAPI_DATA_DIR", "from-env")
	t.Setenv("RAFTAPI_TOKEN", "from-env")
	cmd, vals := flagTarget(t)
	if err := cmd.ParseFlags([]string{"--token", "from-cli", "--config-file", cfg}); err != nil {
		t.Fatal(err)
	}
	if err := applyEnvAndConfig(cmd, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"name": "from-file", "data-dir": "from-env", "token": "from-cli", "join": "10.0.0.1:7946,10.0.0.2:7946"}
	for name, w := range want {
		if got := *vals[name]; got != w {
			t.Errorf("--%s = %q, want %q", name, got, w)
		}
	}
	for name, w := range map[string]string{"insecure-http": "true", "bootstrap-expect": "3", "history-retention": "10m0s"} {
		if got := cmd.Flags().Lookup(name).Value.String(); got != w {
			t.Errorf("--%s = %q, want %q", name, got, w)
		}
	}
}

// TestConfigFileFromEnvironment: RAFTAPI_CONFIG_FILE names the file.
func TestConfigFileFromEnvironment(t *testing.T) {
	t.Setenv("RAFTAPI_CONFIG_FILE", writeConfig(t, "name: n7\n"))
	cmd, vals := flagTarget(t)
	if err := cmd.ParseFlags(nil); err != nil {
		t.Fatal(err)
	}
	if err := applyEnvAndConfig(cmd, nil); err != nil {
		t.Fatal(err)
	}
	if *vals["name"] != "n7" {
		t.Errorf("--name = %q, want n7", *vals["name"])
	}
}

// TestFlagSourcesRefuse: mistakes in the file or the environment are
// reported with where they are, never ignored.
func TestFlagSourcesRefuse(t *testing.T) {
	tests := []struct {
		name, file, env, want string
	}{
		{"unknown key", "nmae: n1\n", "", `"nmae" is not a flag`},
		{"bad value", "bootstrap-expect: three\n", "", "bootstrap-expect"},
		{"nested mapping", "name: {a: b}\n", "", "want a string, number, boolean or list"},
		{"not a mapping", "- name\n", "", "want a mapping"},
		{"config-file in the file", "config-file: other.yaml\n", "", `"config-file" is not a flag`},
		{"bad environment value", "", "three", "RAFTAPI_BOOTSTRAP_EXPECT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("RAFTAPI_BOOTSTRAP_EXPECT", tt.env)
			}
			cmd, _ := flagTarget(t)
			var args []string
			if tt.file != "" {
				args = []string{"--config-file", writeConfig(t, tt.file)}
			}
			if err := cmd.ParseFlags(args); err != nil {
				t.Fatal(err)
			}
			err := applyEnvAndConfig(cmd, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
