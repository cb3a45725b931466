package raftstore

import (
	"bytes"
	"context"
	"log/slog"

	"github.com/hashicorp/go-hclog"
)

// hcLogger routes raft's hclog output into the store's slog.Logger.
type hcLogger struct{ hclog.Logger }

func newHCLogger(l *slog.Logger) *hcLogger {
	level := hclog.Info
	if !l.Enabled(context.Background(), slog.LevelInfo) {
		level = hclog.Warn
	}
	return &hcLogger{hclog.New(&hclog.LoggerOptions{
		Name:       "raft",
		Level:      level,
		Output:     slogWriter{l},
		JSONFormat: false,
	})}
}

// slogWriter turns each line hclog writes into one slog record.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	msg := string(bytes.TrimSpace(p))
	level := slog.LevelInfo
	switch {
	case bytes.Contains(p, []byte("[ERROR]")):
		level = slog.LevelError
	case bytes.Contains(p, []byte("[WARN]")):
		level = slog.LevelWarn
	case bytes.Contains(p, []byte("[DEBUG]")), bytes.Contains(p, []byte("[TRACE]")):
		level = slog.LevelDebug
	}
	w.l.Log(context.Background(), level, msg)
	return len(p), nil
}
