package raftstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// hcLogger is raft's hclog.Logger over the store's slog.Logger: one record
// per event, in the node's own format, with raft's key-value pairs as
// attributes and its sub-logger names as the "logger" attribute.
type hcLogger struct {
	l    *slog.Logger
	name string
	args []any
}

var _ hclog.Logger = (*hcLogger)(nil)

func newHCLogger(l *slog.Logger) *hcLogger {
	return &hcLogger{l: l.With("logger", "raft"), name: "raft"}
}

// quietMessages are raft warnings that every normal start or join
// produces: a node waits out one election timeout before it stands for
// election, a node waiting to be added knows no peers yet, and a leader
// finds where a new or restarted follower's log ends by stepping back.
var quietMessages = map[string]bool{
	"heartbeat timeout reached, starting election": true,
	"no known peers, aborting election":            true,
	"appendEntries rejected, sending older logs":   true,
}

// slogLevel maps an hclog level to slog's; raft's trace is debug.
func slogLevel(level hclog.Level, msg string) slog.Level {
	switch level {
	case hclog.Trace, hclog.Debug:
		return slog.LevelDebug
	case hclog.Warn:
		if quietMessages[msg] {
			return slog.LevelInfo
		}
		return slog.LevelWarn
	case hclog.Error:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// closedConn reports whether err only says a connection was closed: raft's transport reports its reads failing so
// when a node stops (its own connections closed) or a peer goes away,
// which is no error of the cluster's.
func closedConn(err error) bool {
	return errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "use of closed network connection")
}

// refusedVote reports whether err is the answer of a node that waits for
// admission to a vote request (errRejoining, as text: it comes over the
// wire): the candidate logs it as an error, but it is the refusal working
// as meant.
func refusedVote(err error) bool {
	return strings.Contains(err.Error(), errRejoining.Error())
}

// anyError reports whether one of args is an error that is holds for.
func anyError(args []any, is func(error) bool) bool {
	for _, a := range args {
		if err, ok := a.(error); ok && is(err) {
			return true
		}
	}
	return false
}

// Log implements hclog.Logger.
func (h *hcLogger) Log(level hclog.Level, msg string, args ...any) {
	lvl := slogLevel(level, msg)
	switch {
	case lvl >= slog.LevelWarn && anyError(args, closedConn):
		lvl = slog.LevelDebug
	case lvl >= slog.LevelWarn && anyError(args, refusedVote):
		lvl = slog.LevelInfo
	}
	if !h.l.Enabled(context.Background(), lvl) {
		return
	}
	h.l.Log(context.Background(), lvl, msg, attrs(args)...)
}

// attrs turns hclog's alternating keys and values into slog arguments.
func attrs(args []any) []any {
	out := make([]any, 0, len(args))
	for i := 0; i+1 < len(args); i += 2 {
		out = append(out, slog.Any(toKey(args[i]), value(args[i+1])))
	}
	if len(args)%2 == 1 {
		out = append(out, slog.Any("extra", args[len(args)-1]))
	}
	return out
}

// value is how a value prints in text and JSON alike: hclog's Fmt values
// formatted, Stringers (raft's nodes, addresses) and errors as their text,
// byte slices as text.
func value(v any) any {
	switch t := v.(type) {
	case hclog.Format:
		if len(t) > 0 {
			if f, ok := t[0].(string); ok {
				return fmt.Sprintf(f, t[1:]...)
			}
		}
		return fmt.Sprint(t...)
	case []byte:
		return string(t)
	case error:
		return t.Error()
	case fmt.Stringer:
		return t.String()
	}
	return v
}

func toKey(k any) string {
	if s, ok := k.(string); ok {
		return s
	}
	return "key"
}

// Trace, Debug, Info, Warn and Error implement hclog.Logger.
func (h *hcLogger) Trace(msg string, args ...any) { h.Log(hclog.Trace, msg, args...) }
func (h *hcLogger) Debug(msg string, args ...any) { h.Log(hclog.Debug, msg, args...) }
func (h *hcLogger) Info(msg string, args ...any)  { h.Log(hclog.Info, msg, args...) }
func (h *hcLogger) Warn(msg string, args ...any)  { h.Log(hclog.Warn, msg, args...) }
func (h *hcLogger) Error(msg string, args ...any) { h.Log(hclog.Error, msg, args...) }

func (h *hcLogger) enabled(l slog.Level) bool { return h.l.Enabled(context.Background(), l) }

// IsTrace and the other level checks implement hclog.Logger.
func (h *hcLogger) IsTrace() bool { return h.enabled(slog.LevelDebug) }
func (h *hcLogger) IsDebug() bool { return h.enabled(slog.LevelDebug) }
func (h *hcLogger) IsInfo() bool  { return h.enabled(slog.LevelInfo) }
func (h *hcLogger) IsWarn() bool  { return h.enabled(slog.LevelWarn) }
func (h *hcLogger) IsError() bool { return h.enabled(slog.LevelError) }

// ImpliedArgs implements hclog.Logger.
func (h *hcLogger) ImpliedArgs() []any { return h.args }

// With implements hclog.Logger.
func (h *hcLogger) With(args ...any) hclog.Logger {
	return &hcLogger{l: h.l.With(attrs(args)...), name: h.name, args: append(append([]any{}, h.args...), args...)}
}

// Name implements hclog.Logger.
func (h *hcLogger) Name() string { return h.name }

// Named implements hclog.Logger: the name is appended to this logger's.
func (h *hcLogger) Named(name string) hclog.Logger { return h.ResetNamed(h.name + "." + name) }

// ResetNamed implements hclog.Logger.
func (h *hcLogger) ResetNamed(name string) hclog.Logger {
	return &hcLogger{l: h.l.With("logger", name), name: name, args: h.args}
}

// SetLevel implements hclog.Logger; the level is the slog handler's.
func (h *hcLogger) SetLevel(hclog.Level) {}

// GetLevel implements hclog.Logger.
func (h *hcLogger) GetLevel() hclog.Level {
	switch {
	case h.enabled(slog.LevelDebug):
		return hclog.Debug
	case h.enabled(slog.LevelInfo):
		return hclog.Info
	case h.enabled(slog.LevelWarn):
		return hclog.Warn
	}
	return hclog.Error
}

// StandardLogger implements hclog.Logger.
func (h *hcLogger) StandardLogger(*hclog.StandardLoggerOptions) *log.Logger {
	return log.New(h.StandardWriter(nil), "", 0)
}

// StandardWriter implements hclog.Logger: each line is one record, at the
// level its "[LEVEL]" prefix names.
func (h *hcLogger) StandardWriter(*hclog.StandardLoggerOptions) io.Writer { return lineWriter{h} }

type lineWriter struct{ h *hcLogger }

func (w lineWriter) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	level := hclog.Info
	for prefix, l := range map[string]hclog.Level{"[ERR": hclog.Error, "[WARN]": hclog.Warn, "[DEBUG]": hclog.Debug, "[TRACE]": hclog.Trace, "[INFO]": hclog.Info} {
		if strings.HasPrefix(msg, prefix) {
			level = l
			msg = strings.TrimSpace(msg[strings.Index(msg, "]")+1:])
			break
		}
	}
	w.h.Log(level, msg)
	return len(p), nil
}
