package audit

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// Log formats (--audit-log-format).
const (
	// FormatJSON writes one audit.k8s.io/v1 Event in JSON per line.
	FormatJSON = "json"
	// FormatLegacy writes kube's one-line text summary of each event.
	FormatLegacy = "legacy"
)

// Log modes (--audit-log-mode), kube-apiserver's.
const (
	// ModeBlocking writes each event before the request goes on; a failed
	// write is logged and the request served anyway.
	ModeBlocking = "blocking"
	// ModeBlockingStrict is ModeBlocking, except that a request whose
	// RequestReceived event cannot be written fails with 500.
	ModeBlockingStrict = "blocking-strict"
	// ModeBatch queues events for the writer and never waits; events that
	// find the queue full are dropped.
	ModeBatch = "batch"
)

// StdoutPath is the --audit-log-path that writes to standard output.
const StdoutPath = "-"

// Defaults of kube-apiserver's audit log flags.
const (
	DefaultLogMaxAge               = 366
	DefaultLogMaxBackups           = 100
	DefaultLogMaxSize              = 100
	DefaultLogBatchBufferSize      = 10000
	DefaultLogTruncateMaxEventSize = 100 * 1024
	DefaultLogTruncateMaxBatchSize = 10 * 1024 * 1024
	defaultLogVersion              = "audit.k8s.io/v1"
	logPluginName                  = "log"
	allowedFormatsList             = FormatLegacy + "," + FormatJSON
	negativeNumberMessageTemplate  = "--audit-log-%s %v can't be a negative number"
)

var (
	allowedModes   = []string{ModeBatch, ModeBlocking, ModeBlockingStrict}
	allowedFormats = []string{FormatLegacy, FormatJSON}
)

// Options are kube-apiserver's audit flags for the log backend. Auditing
// is on when both PolicyFile and LogPath are set; the zero value is no
// auditing. Zero strings and sizes take kube's defaults (see
// DefaultOptions); zero MaxAge, MaxBackups and MaxSize keep kube's
// meaning (no removal by age, no limit on backups, no rotation).
type Options struct {
	// PolicyFile is --audit-policy-file: an audit.k8s.io/v1 Policy.
	PolicyFile string
	// LogPath is --audit-log-path: the file events are appended to, "-"
	// for standard output.
	LogPath string
	// LogMaxAge is --audit-log-maxage: days to keep rotated files.
	LogMaxAge int
	// LogMaxBackups is --audit-log-maxbackup: rotated files to keep.
	LogMaxBackups int
	// LogMaxSize is --audit-log-maxsize: megabytes before rotation.
	LogMaxSize int
	// LogCompress is --audit-log-compress: gzip the rotated files.
	LogCompress bool
	// LogFormat is --audit-log-format: json or legacy.
	LogFormat string
	// LogVersion is --audit-log-version: audit.k8s.io/v1, the only one.
	LogVersion string
	// LogMode is --audit-log-mode: blocking, blocking-strict or batch.
	LogMode string
	// LogBatchBufferSize is --audit-log-batch-buffer-size: events queued
	// in batch mode before new ones are dropped.
	LogBatchBufferSize int
	// LogTruncateEnabled is --audit-log-truncate-enabled: an event larger
	// than LogTruncateMaxEventSize loses its request and response
	// objects, and is dropped if still too large.
	LogTruncateEnabled bool
	// LogTruncateMaxEventSize is --audit-log-truncate-max-event-size, in
	// bytes.
	LogTruncateMaxEventSize int64
	// LogTruncateMaxBatchSize is --audit-log-truncate-max-batch-size, in
	// bytes, checked as kube checks it. The log is written in runs of
	// whole lines of at most 256 KiB whatever its value (see lineWriter).
	LogTruncateMaxBatchSize int64
}

// DefaultOptions are kube-apiserver's defaults: no policy, no log path.
func DefaultOptions() Options {
	return Options{
		LogMaxAge:               DefaultLogMaxAge,
		LogMaxBackups:           DefaultLogMaxBackups,
		LogMaxSize:              DefaultLogMaxSize,
		LogFormat:               FormatJSON,
		LogVersion:              defaultLogVersion,
		LogMode:                 ModeBlocking,
		LogBatchBufferSize:      DefaultLogBatchBufferSize,
		LogTruncateMaxEventSize: DefaultLogTruncateMaxEventSize,
		LogTruncateMaxBatchSize: DefaultLogTruncateMaxBatchSize,
	}
}

// withDefaults fills the fields whose zero value is not a setting.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.LogFormat == "" {
		o.LogFormat = d.LogFormat
	}
	if o.LogVersion == "" {
		o.LogVersion = d.LogVersion
	}
	if o.LogMode == "" {
		o.LogMode = d.LogMode
	}
	if o.LogBatchBufferSize == 0 {
		o.LogBatchBufferSize = d.LogBatchBufferSize
	}
	if o.LogTruncateMaxEventSize == 0 {
		o.LogTruncateMaxEventSize = d.LogTruncateMaxEventSize
	}
	if o.LogTruncateMaxBatchSize == 0 {
		o.LogTruncateMaxBatchSize = d.LogTruncateMaxBatchSize
	}
	return o
}

// logEnabled reports whether the log backend is configured.
func (o Options) logEnabled() bool { return o.LogPath != "" }

// Validate checks the log options as kube-apiserver does, only when
// --audit-log-path is set, and returns every problem found (nil for
// none) with kube's messages. The policy file is checked when it is
// loaded (New).
func (o Options) Validate() error {
	if !o.logEnabled() {
		return nil
	}
	o = o.withDefaults()
	var errs []error
	errs = appendErr(errs, o.validateMode())
	errs = appendErr(errs, o.validateTruncate())
	errs = appendErr(errs, validateGroupVersion(o.LogVersion))
	if !slices.Contains(allowedFormats, o.LogFormat) {
		errs = append(errs, fmt.Errorf("invalid audit log format %s, allowed formats are %q", o.LogFormat, allowedFormatsList))
	}
	for _, f := range []struct {
		flag  string
		value int
	}{{"maxage", o.LogMaxAge}, {"maxbackup", o.LogMaxBackups}, {"maxsize", o.LogMaxSize}} {
		if f.value < 0 {
			errs = append(errs, fmt.Errorf(negativeNumberMessageTemplate, f.flag, f.value))
		}
	}
	return utilerrors.NewAggregate(errs)
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

// validateMode checks --audit-log-mode and, in batch mode, the buffer.
func (o Options) validateMode() error {
	if !slices.Contains(allowedModes, o.LogMode) {
		return fmt.Errorf("invalid audit %s mode %s, allowed modes are %q", logPluginName, o.LogMode, strings.Join(allowedModes, ","))
	}
	if o.LogMode == ModeBatch && o.LogBatchBufferSize <= 0 {
		return fmt.Errorf("invalid audit batch %s buffer size %v, must be a positive number", logPluginName, o.LogBatchBufferSize)
	}
	return nil
}

// validateTruncate checks the truncation sizes, as kube does whether or
// not truncation is enabled.
func (o Options) validateTruncate() error {
	if o.LogTruncateMaxEventSize <= 0 {
		return fmt.Errorf("invalid audit truncate %s max event size %v, must be a positive number", logPluginName, o.LogTruncateMaxEventSize)
	}
	if o.LogTruncateMaxBatchSize < o.LogTruncateMaxEventSize {
		return fmt.Errorf("invalid audit truncate %s max batch size %v, must be greater than max event size (%v)",
			logPluginName, o.LogTruncateMaxBatchSize, o.LogTruncateMaxEventSize)
	}
	return nil
}

// validateGroupVersion checks --audit-log-version: audit.k8s.io/v1 is the
// only version kube-apiserver 1.37 writes.
func validateGroupVersion(s string) error {
	gv, err := schema.ParseGroupVersion(s)
	if err != nil {
		return err
	}
	if gv != auditv1.SchemeGroupVersion {
		return fmt.Errorf("invalid group version, allowed versions are %q", []schema.GroupVersion{auditv1.SchemeGroupVersion})
	}
	return nil
}
