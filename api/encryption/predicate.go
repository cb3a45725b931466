package encryption

import "github.com/raftapi/raftapi/api/registry"

// predicate returns p applied to the objects, decrypted, of a list or
// watch of prefix: the store filters the stored forms. A stored form
// that cannot be decrypted matches, so that the read that returns it
// fails instead of hiding it.
func (s *storage) predicate(prefix string, p registry.Predicate) registry.Predicate {
	if p == nil {
		return nil
	}
	resPrefix := resourcePrefix(prefix)
	return func(stored []byte) bool {
		var env *envelope
		if maybeEnvelope(stored) {
			env = openEnvelope(stored)
		}
		if resPrefix == "" {
			// Several resources: none to decrypt with.
			return env != nil || p(stored)
		}
		key := resPrefix
		if env != nil {
			// An aesgcm value is bound to its key, which the envelope
			// names.
			key = objectKey(resPrefix, env.Metadata.Namespace, env.Metadata.Name)
		}
		obj, _, err := s.openEnvelope(key, stored, env)
		return err != nil || p(obj)
	}
}
