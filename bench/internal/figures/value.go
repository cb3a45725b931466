package figures

import (
	"crypto/rand"
	"fmt"
)

// NewValue returns a random string of size letters and digits: a value
// the targets store as is (no compression helps it).
func NewValue(size int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, size)
	_, _ = rand.Read(b) // crypto/rand does not fail on Linux
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// variant returns value with its head replaced by c and seq, so that
// every write of a figure changes the stored value (an update that
// changes nothing may not be written at all).
func variant(value string, c, seq int) string {
	head := fmt.Sprintf("%08x%08x", c, seq)
	if len(value) <= len(head) {
		return head[:len(value)]
	}
	return head + value[len(head):]
}
