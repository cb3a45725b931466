package audit

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gopkg.in/natefinch/lumberjack.v2"
)

// openOutput opens the log as kube-apiserver does: "-" is standard
// output; otherwise the file is created (its directory 0700, the file
// 0600) and, with a maximum size, rotated by lumberjack (maxsize MB,
// maxbackup files, maxage days, gzip with compress); with maxsize 0 it
// is appended to and never rotated.
func openOutput(opts Options) (io.WriteCloser, error) {
	if opts.LogPath == StdoutPath {
		return nopCloser{os.Stdout}, nil
	}
	if err := ensureLogFile(opts.LogPath); err != nil {
		return nil, fmt.Errorf("ensureLogFile: %w", err)
	}
	if opts.LogMaxSize == 0 {
		return os.OpenFile(opts.LogPath, os.O_APPEND|os.O_WRONLY, 0o644)
	}
	return &lumberjack.Logger{
		Filename:   opts.LogPath,
		MaxAge:     opts.LogMaxAge,
		MaxBackups: opts.LogMaxBackups,
		MaxSize:    opts.LogMaxSize,
		Compress:   opts.LogCompress,
	}, nil
}

// ensureLogFile creates the log file and its directory if missing.
func ensureLogFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// nopCloser leaves standard output open.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
