package audit

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestOptionsValidate(t *testing.T) {
	cases := []struct {
		name  string
		tweak func(*Options)
		want  string // "" for valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"no log path checks nothing", func(o *Options) { o.LogPath, o.LogFormat, o.LogMaxAge = "", "xml", -1 }, ""},
		{"zero values take defaults", func(o *Options) { *o = Options{LogPath: o.LogPath} }, ""},
		{"format", func(o *Options) { o.LogFormat = "xml" }, `invalid audit log format xml, allowed formats are "legacy,json"`},
		{"mode", func(o *Options) { o.LogMode = "async" }, `invalid audit log mode async, allowed modes are "batch,blocking,blocking-strict"`},
		{"batch buffer", func(o *Options) { o.LogMode, o.LogBatchBufferSize = ModeBatch, -1 }, "invalid audit batch log buffer size -1, must be a positive number"},
		{"buffer unused when blocking", func(o *Options) { o.LogBatchBufferSize = -1 }, ""},
		{"maxage", func(o *Options) { o.LogMaxAge = -1 }, "--audit-log-maxage -1 can't be a negative number"},
		{"maxbackup", func(o *Options) { o.LogMaxBackups = -2 }, "--audit-log-maxbackup -2 can't be a negative number"},
		{"maxsize", func(o *Options) { o.LogMaxSize = -3 }, "--audit-log-maxsize -3 can't be a negative number"},
		{"version", func(o *Options) { o.LogVersion = "audit.k8s.io/v1beta1" }, `invalid group version, allowed versions are ["audit.k8s.io/v1"]`},
		{"truncate event size", func(o *Options) { o.LogTruncateMaxEventSize = -1 }, "invalid audit truncate log max event size -1, must be a positive number"},
		{"truncate batch size", func(o *Options) { o.LogTruncateMaxBatchSize = 10 }, "invalid audit truncate log max batch size 10, must be greater than max event size (102400)"},
		{"several at once", func(o *Options) { o.LogMaxAge, o.LogMaxSize = -1, -1 },
			"[--audit-log-maxage -1 can't be a negative number, --audit-log-maxsize -1 can't be a negative number]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.LogPath = "/var/log/audit.log"
			tc.tweak(&o)
			err := o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestFlags: kube-apiserver's flag names and defaults.
func TestFlags(t *testing.T) {
	var o Options
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	o.AddFlags(fs)
	if o != DefaultOptions() {
		t.Errorf("defaults %+v, want %+v", o, DefaultOptions())
	}
	err := fs.Parse(strings.Fields("--audit-policy-file p.yaml --audit-log-path - --audit-log-maxage 3 --audit-log-maxbackup 4 " +
		"--audit-log-maxsize 5 --audit-log-format legacy --audit-log-mode batch --audit-log-batch-buffer-size 6 --audit-log-compress " +
		"--audit-log-version audit.k8s.io/v1 --audit-log-truncate-enabled --audit-log-truncate-max-event-size 7 --audit-log-truncate-max-batch-size 8"))
	if err != nil {
		t.Fatal(err)
	}
	want := Options{PolicyFile: "p.yaml", LogPath: "-", LogMaxAge: 3, LogMaxBackups: 4, LogMaxSize: 5, LogFormat: "legacy", LogMode: "batch",
		LogBatchBufferSize: 6, LogCompress: true, LogVersion: "audit.k8s.io/v1", LogTruncateEnabled: true, LogTruncateMaxEventSize: 7, LogTruncateMaxBatchSize: 8}
	if o != want {
		t.Errorf("parsed %+v, want %+v", o, want)
	}
}

// TestNewRefuses: a bad policy or log location refuses to start.
func TestNewRefuses(t *testing.T) {
	opts := DefaultOptions()
	opts.PolicyFile = writeFile(t, "policy.yaml", "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n")
	opts.LogPath = "-"
	if _, err := New(Config{Options: opts}); err == nil || !strings.HasPrefix(err.Error(), "loading audit policy file: loaded illegal policy with 0 rules") {
		t.Errorf("empty policy: %v", err)
	}
	opts.PolicyFile = writeFile(t, "policy.yaml", policyAt("Metadata"))
	opts.LogPath = opts.PolicyFile + "/audit.log" // under a file
	if _, err := New(Config{Options: opts}); err == nil || !strings.HasPrefix(err.Error(), "ensureLogFile: ") {
		t.Errorf("log under a file: %v", err)
	}
	opts.LogPath = ""
	a, err := New(Config{Options: opts})
	if err != nil || a.Enabled() {
		t.Errorf("policy without a log: enabled %v, %v", a.Enabled(), err)
	}
}
