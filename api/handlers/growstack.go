package handlers

// growStackFrame is the stack frame growStack takes: with the frames
// below it, the runtime gives the goroutine a stack of 64 KiB.
const growStackFrame = 40 << 10

// growStack grows the calling goroutine's stack to about 64 KiB in one
// step; the handlers of writes with a body call it first. Every request
// runs on a new goroutine, whose stack starts at the process's average
// size: a few KiB, since most goroutines are small. A write goes much
// deeper: request decoding, admission and managedFields
// (structured-merge-diff walks the object recursively, decoding JSON
// inside) grew the stack three or four times per request, each time
// copying it and adjusting every frame. Growing it once copies only the
// frames then on it. Under a 64-client update load the stack copies were
// 5 to 6% of the three nodes' CPU. Reads stay shallower: growing every
// request's stack made a Most Recent get spend more on zeroing and
// allocating the larger stack than it saved in copies.
//
//go:noinline
func growStack() {
	var buf [growStackFrame]byte
	useStack(buf[:])
}

// useStack keeps growStack's frame from being optimized away; the slice
// does not escape, so the frame stays on the stack.
//
//go:noinline
func useStack(b []byte) { b[len(b)-1] = 0 }
