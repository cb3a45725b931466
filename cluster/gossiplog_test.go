package cluster

import (
	"bytes"
	"encoding/json"
	"log"
	"log/slog"
	"strings"
	"testing"
)

// TestGossipLogLines checks that memberlist's log lines become one record
// each, without memberlist's own date and level prefix.
func TestGossipLogLines(t *testing.T) {
	var buf bytes.Buffer
	l := log.New(slogLineWriter{slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}, "", 0)
	l.Print("[ERR] memberlist: failed to receive: no installed keys could decrypt the message from=127.0.0.1:5")
	l.Print("[DEBUG] memberlist: Stream connection from=127.0.0.1:6")
	want := []struct{ level, msg string }{
		{"ERROR", "failed to receive: no installed keys could decrypt the message from=127.0.0.1:5"},
		{"DEBUG", "Stream connection from=127.0.0.1:6"},
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("records:\n%s", buf.String())
	}
	for i, line := range lines {
		var got struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(line), &got); err != nil || got.Level != want[i].level || got.Msg != want[i].msg {
			t.Errorf("record %d = %s, want %+v", i, line, want[i])
		}
	}
}
