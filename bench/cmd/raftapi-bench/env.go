package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// parse parses args into fs, then sets every flag the command line left
// alone from its environment variable in envOf, if set: the command line
// wins over the environment, which wins over the defaults.
func parse(fs *flag.FlagSet, args []string, envOf map[string]string) error {
	for name, env := range envOf {
		if f := fs.Lookup(name); f != nil {
			f.Usage += " (env " + env + ")"
		}
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, env := range envOf {
		if v := os.Getenv(env); v != "" && !set[name] {
			if err := fs.Set(name, v); err != nil {
				return fmt.Errorf("$%s: %w", env, err)
			}
		}
	}
	return nil
}

// intList is a flag of comma-separated positive integers: 1,64.
type intList []int

func (l *intList) String() string {
	var s []string
	for _, n := range *l {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(v string) error {
	var out intList
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("%q: want positive integers separated by commas", v)
		}
		out = append(out, n)
	}
	*l = out
	return nil
}
