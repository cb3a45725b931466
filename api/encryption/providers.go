package encryption

import (
	"encoding/base64"
	"errors"
	"fmt"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// newProviders returns the transformers of a resource entry's providers,
// in order, each behind its prefix.
func newProviders(ps []apiserverv1.ProviderConfiguration) ([]prefixed, error) {
	out := make([]prefixed, 0, len(ps))
	for i, p := range ps {
		t, err := newProvider(p)
		if err != nil {
			return nil, fmt.Errorf("providers[%d]: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// newProvider returns the transformer of one provider.
func newProvider(p apiserverv1.ProviderConfiguration) (prefixed, error) {
	switch {
	case p.AESGCM != nil:
		return keyed(aesGCMPrefix, p.AESGCM.Keys, newAESGCM, "AES")
	case p.AESCBC != nil:
		return keyed(aesCBCPrefix, p.AESCBC.Keys, newAESCBC, "AES")
	case p.Secretbox != nil:
		return keyed(secretboxPrefix, p.Secretbox.Keys, newSecretbox, "Secretbox")
	case p.Identity != nil:
		return prefixed{t: identity{}}, nil
	}
	return prefixed{}, errors.New("provider does not contain any of the expected providers: AESGCM, AESCBC, Secretbox, Identity")
}

// keyed returns a provider of several keys, as kube-apiserver lays them
// out: prefix, the key's name and ":", then the key's output. The first
// key writes; a value read with another one is stale.
func keyed(prefix string, keys []apiserverv1.Key, newKey func([]byte) (transformer, error), what string) (prefixed, error) {
	items := make([]prefixed, 0, len(keys))
	for _, k := range keys {
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			return prefixed{}, fmt.Errorf("could not obtain secret for named key %s: %w", k.Name, err)
		}
		t, err := newKey(secret)
		if err != nil {
			return prefixed{}, fmt.Errorf("error while creating transformer for named key %s: %w", k.Name, err)
		}
		items = append(items, prefixed{prefix: []byte(k.Name + ":"), t: t})
	}
	return prefixed{
		prefix: []byte(prefix),
		t:      &prefixList{items: items, noMatch: fmt.Errorf("no matching key was found for the provided %s transformer", what)},
	}, nil
}
