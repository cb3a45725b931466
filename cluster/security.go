package cluster

// minSecretLen is the shortest token secret started without a warning.
const minSecretLen = 16

// security is everything a node proves and checks, set up at start.
type security struct {
	peer *peerSecurity
	api  *apiSecurity
	// sa issues and verifies service-account tokens.
	sa *serviceAccounts
}

// setUpSecurity makes the data directory private, resolves the cluster's
// token, derives its authority, and issues the node's certificates. It
// sets cfg.GossipKey to the key the token derives unless one is given.
func setUpSecurity(cfg *Config) (*security, error) {
	if err := privateDataDir(cfg.DataDir); err != nil {
		return nil, err
	}
	tok, auth, err := resolveToken(*cfg)
	if err != nil {
		return nil, err
	}
	if len(tok.Secret) < minSecretLen {
		cfg.Logger.Warn("the token's secret is short: whoever guesses it holds the cluster's CAs; `raftapi token generate` prints a strong one", "length", len(tok.Secret))
	}
	sec := &security{}
	if byoPeer(*cfg) {
		sec.peer, err = filePeerSecurity(*cfg)
	} else {
		sec.peer, err = derivedPeerSecurity(*cfg, auth)
	}
	if err != nil {
		return nil, err
	}
	if sec.api, err = newAPISecurity(*cfg, auth); err != nil {
		return nil, err
	}
	if sec.sa, err = newServiceAccounts(*cfg, auth, sec.api); err != nil {
		return nil, err
	}
	if len(cfg.GossipKey) == 0 {
		cfg.GossipKey = auth.GossipKey
	}
	return sec, nil
}
