package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/raftapi/raftapi/chaos/check"
	"github.com/raftapi/raftapi/chaos/history"
	"github.com/raftapi/raftapi/chaos/report"
)

// recheck runs the checkers again over a saved history.jsonl.
func recheck(args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	tolerate := fs.String("tolerate", "", "comma-separated anomaly kinds to report without failing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: raftapi-chaos check history.jsonl")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	h, err := history.Read(f)
	if err != nil {
		return err
	}
	var opts check.Options
	if *tolerate != "" {
		opts.Tolerate = strings.Split(*tolerate, ",")
	}
	results := check.All(h, opts)
	s := report.Summarize(h, results, 0)
	s.WriteText(os.Stdout)
	if !s.Passed {
		return exitError(1)
	}
	fmt.Println("every checker passed")
	return nil
}
