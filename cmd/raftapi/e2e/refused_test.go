package e2e

import (
	"errors"
	"syscall"
)

// isRefused reports whether a request failed because nothing listened: the
// request was never sent.
func isRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
