package main

import "errors"

func snapshotCmd(args []string) error { return errors.New("snapshot: not implemented") }
