package audit

import (
	"encoding/json"
	"errors"
	"log/slog"

	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// kube's truncating backend marks what it cut with this annotation.
const (
	truncatedAnnotationKey   = "audit.k8s.io/truncated"
	truncatedAnnotationValue = "true"
)

// errTooLarge is kube's error for an event still over the size limit
// once its objects are cut.
var errTooLarge = errors.New("event is too large even after truncating")

// backend is kube-apiserver's log backend: it encodes events in the
// configured format (after truncation, when enabled) and hands the lines
// to the writer.
type backend struct {
	format   string
	truncate bool
	maxEvent int64
	// strict fails requests whose RequestReceived event is not written
	// (blocking-strict mode).
	strict bool
	out    *lineWriter
}

// openBackend opens the log that opts name.
func openBackend(opts Options, log *slog.Logger) (*backend, error) {
	w, err := openOutput(opts)
	if err != nil {
		return nil, err
	}
	return &backend{
		format:   opts.LogFormat,
		truncate: opts.LogTruncateEnabled,
		maxEvent: opts.LogTruncateMaxEventSize,
		strict:   opts.LogMode == ModeBlockingStrict,
		out:      newLineWriter(w, opts.LogMode, opts.LogBatchBufferSize, log),
	}, nil
}

// encode returns ev's line. The caller holds ev's record lock: ev is
// not changed.
func (b *backend) encode(ev *auditv1.Event) ([]byte, error) {
	js, err := jsonLine(ev)
	if err != nil {
		return nil, err
	}
	if b.truncate && int64(len(js)) > b.maxEvent {
		if js, err = b.truncated(ev); err != nil {
			return nil, err
		}
	}
	if b.format == FormatLegacy {
		return []byte(legacyLine(ev) + "\n"), nil
	}
	return js, nil
}

// truncated is ev without its request and response objects, marked so,
// as kube's truncating backend does for events of level Request and up;
// an error if that is still too large.
func (b *backend) truncated(ev *auditv1.Event) ([]byte, error) {
	if auditinternal.Level(ev.Level).Less(auditinternal.LevelRequest) {
		return nil, errTooLarge
	}
	cut := *ev
	cut.RequestObject, cut.ResponseObject = nil, nil
	cut.Annotations = map[string]string{truncatedAnnotationKey: truncatedAnnotationValue}
	for k, v := range ev.Annotations {
		cut.Annotations[k] = v
	}
	js, err := jsonLine(&cut)
	if err != nil {
		return nil, err
	}
	if int64(len(js)) > b.maxEvent {
		return nil, errTooLarge
	}
	return js, nil
}

// jsonLine is ev in JSON, newline-terminated, as kube's encoder writes it.
func jsonLine(ev *auditv1.Event) ([]byte, error) {
	js, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}

// write hands a line to the writer; false when it was not written (or,
// in batch mode, not queued).
func (b *backend) write(line []byte) bool { return b.out.write(line) }

// close writes what is queued and closes the log.
func (b *backend) close() error { return b.out.close() }
