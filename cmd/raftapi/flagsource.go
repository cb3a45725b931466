package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// Flags come from three places, the first that sets a flag winning: the
// command line, the environment (RAFTAPI_<FLAG>), and, for serve, the
// file named by --config-file (a YAML mapping of flag names to values).

// envPrefix starts the environment variable of every flag.
const envPrefix = "RAFTAPI_"

// configFileFlag names the flag that points serve at a config file.
const configFileFlag = "config-file"

// applyEnvAndConfig sets the flags the command line left unset from the
// environment, then from the config file.
func applyEnvAndConfig(cmd *cobra.Command, _ []string) error {
	if err := applyEnv(cmd); err != nil {
		return err
	}
	f := cmd.Flags().Lookup(configFileFlag)
	if f == nil || f.Value.String() == "" {
		return nil
	}
	return applyConfigFile(cmd, f.Value.String())
}

// envName is the environment variable of flag name: RAFTAPI_DATA_DIR for
// data-dir.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// applyEnv sets every flag not given on the command line whose
// environment variable is set.
func applyEnv(cmd *cobra.Command) error {
	var err error
	visitFlags(cmd, func(f *pflag.Flag) {
		if err != nil || f.Changed || f.Name == "help" || f.Name == "version" {
			return
		}
		v, ok := os.LookupEnv(envName(f.Name))
		if !ok {
			return
		}
		if serr := cmd.Flags().Set(f.Name, v); serr != nil {
			err = usagef("invalid value %q in %s for --%s: %v", v, envName(f.Name), f.Name, serr)
		}
	})
	return err
}

// applyConfigFile sets every flag that neither the command line nor the
// environment set from the YAML file path. An unknown key is an error,
// so a misspelt setting is not silently ignored.
func applyConfigFile(cmd *cobra.Command, path string) error {
	values, err := readConfigFile(path)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := cmd.Flags().Lookup(name)
		if f == nil || name == configFileFlag || name == "help" {
			return fmt.Errorf("--config-file %s: %q is not a flag of %q", path, name, cmd.CommandPath())
		}
		if f.Changed {
			continue
		}
		if err := cmd.Flags().Set(name, values[name]); err != nil {
			return fmt.Errorf("--config-file %s: %s: %v", path, name, err)
		}
	}
	return nil
}

// readConfigFile reads a YAML mapping of flag names to scalars or lists of
// scalars (joined with commas, as the flags take them).
func readConfigFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--config-file: %w", err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("--config-file %s: %w", path, err)
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("--config-file %s: want a mapping of flag names to values: %w", path, err)
	}
	out := make(map[string]string, len(raw))
	for name, v := range raw {
		s, err := configValue(v)
		if err != nil {
			return nil, fmt.Errorf("--config-file %s: %s: %w", path, name, err)
		}
		out[name] = s
	}
	return out, nil
}

// configValue renders one config file value as its flag would be given.
func configValue(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool, json.Number:
		return fmt.Sprint(v), nil
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s, err := configValue(e)
			if err != nil {
				return "", err
			}
			if _, nested := e.([]any); nested {
				return "", fmt.Errorf("lists cannot nest")
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("want a string, number, boolean or list, got %T", v)
}
