package request

import (
	"context"
	"sync"
)

// warningsKey is the context key of a request's Warnings.
type warningsKey struct{}

// Warnings collects the warnings a request's handling raises, for the
// response's Warning headers (kube's warning.AddWarning). Safe for
// concurrent use.
type Warnings struct {
	mu   sync.Mutex
	msgs []string
}

// WithWarnings returns ctx carrying a new, empty Warnings, and it.
func WithWarnings(ctx context.Context) (context.Context, *Warnings) {
	w := &Warnings{}
	return context.WithValue(ctx, warningsKey{}, w), w
}

// AddWarning records msg on ctx's Warnings; without any it does nothing.
func AddWarning(ctx context.Context, msg string) {
	if w, ok := ctx.Value(warningsKey{}).(*Warnings); ok {
		w.mu.Lock()
		w.msgs = append(w.msgs, msg)
		w.mu.Unlock()
	}
}

// List is the warnings recorded so far, in order.
func (w *Warnings) List() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}
