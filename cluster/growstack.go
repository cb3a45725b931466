package cluster

import "net/http"

// Frames that grow a request's goroutine stack (see growStackFor). The
// runtime doubles a stack until the frame that overflowed it fits: from
// a root with a frame or two on it, a frame above 32 KiB gives a stack of
// 64 KiB, one above 8 KiB a stack of 16 KiB.
const (
	writeStackFrame = 40 << 10
	readStackFrame  = 12 << 10
)

// growStackFor grows the calling goroutine's stack, which serveWithin has
// just started for r, to what r's handling takes, in one step while the
// stack holds only the goroutine's first frames. A new goroutine's stack
// starts at the process's average size, a few KiB, since most goroutines
// are small; a request goes much deeper (the filters, then request
// decoding, admission and managedFields for a write, whose
// structured-merge-diff walks recurse into the object), and its stack
// grew three or four times, each time copying every frame then on it and
// adjusting their pointers. Grown here, only the root's frames are
// copied: writes with a body (POST, PUT, PATCH) to 64 KiB, which holds
// them, the rest to 16 KiB, which holds a get (in a get's profile, what
// the stack-growth path does after that is mostly preemption, not
// copies). Growing a get to 64 KiB too cost more in zeroing and
// allocating the larger stack than it saved. Measured in
// BenchmarkSecurityCost/open (creates and gets at 64 clients, client and
// server in one process): the stack growth, the growing frames' zeroing
// included, fell from 5.5% of its CPU to 3.4%, and in its get figure
// alone from 4.4% to 2.0%; under a 64-client update load, growing in the
// write handlers instead (where the filters' frames were on the stack
// already) had taken it from 6.9% of the three nodes' CPU to 1.9%.
func growStackFor(r *http.Request) {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		growStackTo64K()
	default:
		growStackTo16K()
	}
}

// growStackTo64K takes a frame of writeStackFrame bytes: from a
// goroutine's root, the stack becomes 64 KiB.
//
//go:noinline
func growStackTo64K() {
	var buf [writeStackFrame]byte
	useStack(buf[:])
}

// growStackTo16K takes a frame of readStackFrame bytes: from a
// goroutine's root, the stack becomes 16 KiB.
//
//go:noinline
func growStackTo16K() {
	var buf [readStackFrame]byte
	useStack(buf[:])
}

// useStack keeps a growing frame from being optimized away; the slice does
// not escape, so the frame stays on the stack.
//
//go:noinline
func useStack(b []byte) { b[len(b)-1] = 0 }
