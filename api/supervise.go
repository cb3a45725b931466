package api

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// restartDelay is how long a controller that panicked waits before it
// runs again: long enough that a panic on every pass cannot spin a core,
// short enough that a one-off does not stall the controller.
const restartDelay = time.Second

// supervise runs run until ctx ends, restarting it after a panic: the
// panic is logged with its stack as one error line and the controller
// comes back after restartDelay, so a bug in one object's handling never
// takes the node down, nor leaves the controller dead while the node
// serves on. A run that returns without a panic is done.
func supervise(ctx context.Context, log *slog.Logger, name string, run func(context.Context)) {
	for {
		if !runRecovering(ctx, log, name, run) || ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(restartDelay):
		}
	}
}

// runRecovering runs run once and reports whether it panicked.
func runRecovering(ctx context.Context, log *slog.Logger, name string, run func(context.Context)) (panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			log.Error("controller panicked; restarting it", "controller", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			panicked = true
		}
	}()
	run(ctx)
	return false
}
