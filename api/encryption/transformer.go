package encryption

import (
	"bytes"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// transformer turns a value into its stored form and back. authData is
// the storage key of the value, which an authenticated cipher binds the
// value to. Implementations are safe for concurrent use.
type transformer interface {
	// read returns the value of stored; stale when stored is not the
	// form write would produce now (it was written with a key or
	// provider that is no longer the first).
	read(stored, authData []byte) (value []byte, stale bool, err error)
	// write returns the stored form of value.
	write(value, authData []byte) ([]byte, error)
}

// prefixed is a transformer whose stored values start with prefix.
type prefixed struct {
	prefix []byte
	t      transformer
}

// prefixList is kube-apiserver's prefix transformer list: the first item
// writes (its prefix, then its output); a read tries, in order, every item
// whose prefix the stored value starts with, and is stale unless the first
// item read it. It is used twice: the keys of one provider, and the
// providers of one resource.
type prefixList struct {
	items []prefixed
	// noMatch is the error when no item's prefix matches.
	noMatch error
}

var _ transformer = (*prefixList)(nil)

func (l *prefixList) read(stored, authData []byte) ([]byte, bool, error) {
	var errs []error
	for i, p := range l.items {
		if !bytes.HasPrefix(stored, p.prefix) {
			continue
		}
		value, stale, err := p.t.read(stored[len(p.prefix):], authData)
		if len(p.prefix) == 0 && err != nil {
			// The identity provider refused an encrypted value: a later
			// provider may read it.
			continue
		}
		if err != nil {
			// Several items may share a prefix (the same provider listed
			// twice, with different keys): try them all.
			errs = append(errs, err)
			continue
		}
		return value, stale || i != 0, nil
	}
	if err := utilerrors.Reduce(utilerrors.NewAggregate(errs)); err != nil {
		return nil, false, err
	}
	return nil, false, l.noMatch
}

func (l *prefixList) write(value, authData []byte) ([]byte, error) {
	first := l.items[0]
	out, err := first.t.write(value, authData)
	if err != nil {
		return nil, err
	}
	return append(bytes.Clone(first.prefix), out...), nil
}
