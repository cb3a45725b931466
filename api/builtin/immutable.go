package builtin

// immutableMsg is the detail of the errors raised when an object marked
// immutable is changed.
const immutableMsg = "field is immutable when `immutable` is set"

// isTrue reports whether an optional flag is set and true.
func isTrue(b *bool) bool { return b != nil && *b }
