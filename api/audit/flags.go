package audit

import (
	"strings"

	"github.com/spf13/pflag"
)

// AddFlags registers kube-apiserver's audit flags on fs, bound to o, with
// kube's names, defaults and help.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	d := DefaultOptions()
	fs.StringVar(&o.PolicyFile, "audit-policy-file", "",
		"Path to the file that defines the audit policy configuration (audit.k8s.io/v1 Policy, YAML or JSON). Without it nothing is audited.")
	fs.StringVar(&o.LogPath, "audit-log-path", "",
		"If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.")
	fs.IntVar(&o.LogMaxAge, "audit-log-maxage", d.LogMaxAge,
		"The maximum number of days to retain old audit log files based on the timestamp encoded in their filename. Setting a value of 0 means old audit log files are not removed based on age.")
	fs.IntVar(&o.LogMaxBackups, "audit-log-maxbackup", d.LogMaxBackups,
		"The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.")
	fs.IntVar(&o.LogMaxSize, "audit-log-maxsize", d.LogMaxSize,
		"The maximum size in megabytes of the audit log file before it gets rotated. Setting to 0 disables rotation (not recommended).")
	fs.StringVar(&o.LogFormat, "audit-log-format", d.LogFormat,
		`Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are `+allowedFormatsList+".")
	fs.StringVar(&o.LogVersion, "audit-log-version", d.LogVersion,
		"API group and version used for serializing audit events written to log.")
	fs.BoolVar(&o.LogCompress, "audit-log-compress", false,
		"If set, the rotated log files will be compressed using gzip.")
	fs.StringVar(&o.LogMode, "audit-log-mode", d.LogMode,
		"Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are "+strings.Join(allowedModes, ",")+".")
	fs.IntVar(&o.LogBatchBufferSize, "audit-log-batch-buffer-size", d.LogBatchBufferSize,
		"The size of the buffer to store events before batching and writing. Only used in batch mode.")
	fs.BoolVar(&o.LogTruncateEnabled, "audit-log-truncate-enabled", false,
		"Whether event and batch truncating is enabled.")
	fs.Int64Var(&o.LogTruncateMaxBatchSize, "audit-log-truncate-max-batch-size", d.LogTruncateMaxBatchSize,
		"Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.")
	fs.Int64Var(&o.LogTruncateMaxEventSize, "audit-log-truncate-max-event-size", d.LogTruncateMaxEventSize,
		"Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn't reduce the size enough, event is discarded.")
}
