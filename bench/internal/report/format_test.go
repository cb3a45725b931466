package report

import (
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	tests := []struct{ got, want string }{
		{Duration(420 * time.Microsecond), "0.42 ms"},
		{Duration(3100 * time.Microsecond), "3.1 ms"},
		{Duration(120 * time.Millisecond), "120 ms"},
		{Duration(1250 * time.Millisecond), "1.25 s"},
		{Rate(1234.4), "1234"},
		{Rate(2.25), "2.2"},
		{Bytes(512), "512 B"},
		{Bytes(1536 * 1024), "1.5 MiB"},
		{Bytes(3 << 30), "3.0 GiB"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
