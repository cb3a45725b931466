package raftstore

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
	"github.com/raftapi/raftapi/fsm"
)

// Store is one node of the replicated store. All methods are safe for
// concurrent use.
type Store struct {
	cfg Config

	fsm      *fsm.FSM
	hub      *hub
	notifier *applyNotifier

	raft *raft.Raft
	// raftConns are the raft connections being served (see connTracker).
	raftConns *connTracker
	// raftReady holds raft once started, for the peer mux's goroutines,
	// which run before it exists.
	raftReady atomic.Pointer[raft.Raft]
	logStore  logStore
	logs      raft.LogStore
	transport *raft.NetworkTransport
	mux       *peerMux
	rpc       *http.Server
	peers     *peerClient
	forwards  *forwarder
	// withoutApplyMany makes the node answer rpcApplyMany as an earlier
	// release does, with 404; tests set it.
	withoutApplyMany atomic.Bool
	reads            *rounds

	advertise string
	hasState  atomic.Bool
	// rejoining: this node waits for admission and does not vote (see
	// rejoin.go).
	rejoining     atomic.Bool
	rejoinMu      sync.Mutex
	committedTerm atomic.Uint64
	leaderChanges atomic.Uint64
	// acked is the highest index of a write this node has answered: its
	// own state shows it to every later read (see ownState).
	acked atomic.Uint64
	own   ownWrites // this follower's recent writes, see ownWrites
	// leaderGets counts the reads this node asked the leader to answer
	// (see getFromLeader).
	leaderGets atomic.Uint64
	// restamped counts the forwarded writes whose stored object this
	// node stamped itself (omitStamped).
	restamped atomic.Uint64
	// replayChecks counts boundReplay's looks at the log.
	replayChecks atomic.Uint64
	observer     atomic.Pointer[observerBox] // see SetObserver
	closed       atomic.Bool
	stopCh       chan struct{}
	wg           sync.WaitGroup
	closeOnce    sync.Once
	closeErr     error
}

// Open starts a node: it opens or creates the data directory, starts the
// peer service and raft, and bootstraps the initial cluster when the data
// directory holds no raft state. It returns before a leader is elected.
func Open(c Config) (*Store, error) {
	cfg, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("raftstore: create data dir: %w", err)
	}
	s := &Store{cfg: cfg, notifier: newApplyNotifier(), stopCh: make(chan struct{}), raftConns: newConnTracker()}
	s.peers = newPeerClient(cfg.PeerDialer, 5*time.Second)
	s.forwards = newForwarder(s)
	s.reads = &rounds{fn: s.readIndexRound, timeout: cfg.ReadIndexTimeout}
	if err := s.open(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) open() error {
	ln, err := s.peerListener()
	if err != nil {
		return err
	}
	s.mux = newPeerMux(ln, s.cfg.Logger, s.cfg.PeerHandshakeTimeout, s.admitPeer)
	go s.mux.serve()
	if err := s.openState(); err != nil {
		return err
	}
	if err := s.startRaft(ln.Addr()); err != nil {
		return err
	}
	s.rpc = &http.Server{Handler: s.rpcHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.rpc.Serve(s.mux.listener(protoRPC)) }()
	s.wg.Add(3)
	go s.observeLeader()
	go s.compactLoop()
	go s.replayBoundLoop()
	if s.rejoining.Load() {
		s.wg.Add(1)
		go s.rejoinLoop()
	}
	return nil
}

func (s *Store) peerListener() (net.Listener, error) {
	if s.cfg.PeerListener != nil {
		return s.cfg.PeerListener, nil
	}
	ln, err := net.Listen("tcp", s.cfg.PeerListen)
	if err != nil {
		return nil, fmt.Errorf("raftstore: listen on peer address: %w", err)
	}
	return ln, nil
}

// openState opens the FSM, the raft log and the snapshot store.
func (s *Store) openState() error {
	f, err := fsm.Open(filepath.Join(s.cfg.DataDir, stateFile), (*fsmListener)(s), fsm.WithCommitDelay(stateCommitDelay))
	if err != nil {
		return err
	}
	s.fsm = f
	if f.Discarded() {
		s.cfg.Logger.Warn("the state file was open, unsynced, when the machine restarted and may be torn: discarded; rebuilding the state from the newest snapshot and the raft log",
			"path", filepath.Join(s.cfg.DataDir, stateFile))
	}
	s.hub = newHub(f.Applied(), s.cfg.WatchRecentEvents)
	s.logStore, err = openLogStore(s.cfg.DataDir, newHCLogger(s.cfg.Logger))
	if err != nil {
		return err
	}
	s.logs, err = raft.NewLogCache(512, s.logStore)
	return err
}

// stateCommitDelay is the shortest time between two commits of the state
// file: batches applied meanwhile share one commit (see fsm/pending.go).
// Writers do not wait for it: a proposer's result comes from the apply.
// Reads that must see an entry commit at once (fsm.Need); under load a
// watch or an Any read may trail the log by up to this much more than
// before.
const stateCommitDelay = 5 * time.Millisecond

// fsmListener is the Store's face towards the FSM's committed-event feed.
type fsmListener Store

func (l *fsmListener) Committed(applied uint64, events []fsm.Event) {
	l.hub.committed(applied, events)
	l.notifier.notify()
}

func (l *fsmListener) Restored(applied uint64) {
	l.hub.restored(applied)
	l.notifier.notify()
}

func (s *Store) startRaft(bound net.Addr) error {
	advertise, err := s.advertiseAddr(bound)
	if err != nil {
		return err
	}
	hl := newHCLogger(s.cfg.Logger)
	snaps, err := newSnapshotStore(s.cfg.DataDir, 2, hl)
	if err != nil {
		return fmt.Errorf("raftstore: open snapshot store: %w", err)
	}
	if err := s.catchUpFromSnapshot(snaps); err != nil {
		return err
	}
	s.transport = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  &raftStreamLayer{subListener: s.mux.listener(protoRaft), advertise: advertise, dial: s.cfg.PeerDialer, conns: s.raftConns},
		MaxPool: 4,
		Timeout: 10 * time.Second,
		Logger:  hl,
		// No pipelined replication: hashicorp/raft's pipeline can
		// deadlock (see noPipelining) and stop a follower's log for good.
		MaxRPCsInFlight: noPipelining,
	})
	rc := s.raftConfig(hl)
	has, err := raft.HasExistingState(s.logs, s.logStore, snaps)
	if err != nil {
		return fmt.Errorf("raftstore: read raft state: %w", err)
	}
	if err := s.openRejoin(has); err != nil {
		return err
	}
	var trans raft.Transport = s.transport
	if s.rejoining.Load() {
		holdElections(rc)
		trans = newRejoinTransport(s.transport, s)
	}
	if err := s.bootstrap(rc, has, snaps, advertise); err != nil {
		return err
	}
	s.raft, err = raft.NewRaft(rc, s.fsm, s.logs, s.logStore, snaps, trans)
	if err != nil {
		return fmt.Errorf("raftstore: start raft: %w", err)
	}
	s.raftReady.Store(s.raft)
	return nil
}

func (s *Store) advertiseAddr(bound net.Addr) (net.Addr, error) {
	if s.cfg.PeerAdvertise == "" {
		// No one can dial a wildcard address; for a node bound to one
		// without an advertise address (a single node: clusters need
		// one), the loopback address is what reaches it.
		if tcp, ok := bound.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
			return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: tcp.Port}, nil
		}
		return bound, nil
	}
	addr, err := net.ResolveTCPAddr("tcp", s.cfg.PeerAdvertise)
	if err != nil {
		return nil, fmt.Errorf("raftstore: peer advertise address: %w", err)
	}
	return addr, nil
}

func (s *Store) raftConfig(hl *hcLogger) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(s.cfg.Name)
	rc.Logger = hl
	// The FSM keeps its own durable state; restoring the latest snapshot on
	// every start would throw it away and replay the log since.
	rc.NoSnapshotRestoreOnStart = true
	rc.BatchApplyCh = true
	rc.MaxAppendEntries = 256
	rc.CommitTimeout = s.cfg.CommitTimeout
	rc.HeartbeatTimeout, rc.ElectionTimeout = s.cfg.HeartbeatTimeout, s.cfg.ElectionTimeout
	if s.cfg.LeaderLeaseTimeout > 0 {
		rc.LeaderLeaseTimeout = s.cfg.LeaderLeaseTimeout
	}
	if s.cfg.SnapshotThreshold > 0 {
		rc.SnapshotThreshold = s.cfg.SnapshotThreshold
	}
	if s.cfg.SnapshotInterval > 0 {
		rc.SnapshotInterval = s.cfg.SnapshotInterval
	}
	if s.cfg.TrailingLogs > 0 {
		rc.TrailingLogs = s.cfg.TrailingLogs
	}
	return rc
}

// catchUpFromSnapshot restores the newest snapshot when the state file is
// older than it (e.g. the state file was lost): raft starts applying after
// the snapshot's index and would otherwise leave a hole.
func (s *Store) catchUpFromSnapshot(snaps raft.SnapshotStore) error {
	list, err := snaps.List()
	if err != nil || len(list) == 0 || list[0].Index <= s.fsm.Applied() {
		return err
	}
	_, rc, err := snaps.Open(list[0].ID)
	if err != nil {
		return fmt.Errorf("raftstore: open snapshot %s: %w", list[0].ID, err)
	}
	if err := s.fsm.Restore(rc); err != nil {
		return fmt.Errorf("raftstore: restore snapshot %s: %w", list[0].ID, err)
	}
	return nil
}

// bootstrap writes the initial configuration when there is no raft state.
func (s *Store) bootstrap(rc *raft.Config, has bool, snaps raft.SnapshotStore, advertise net.Addr) error {
	s.advertise = advertise.String()
	if has {
		s.hasState.Store(true)
		return nil
	}
	if s.cfg.DeferBootstrap {
		return nil
	}
	var conf raft.Configuration
	if len(s.cfg.InitialCluster) == 0 {
		conf.Servers = []raft.Server{{ID: rc.LocalID, Address: raft.ServerAddress(advertise.String()), Suffrage: raft.Voter}}
	}
	for name, addr := range s.cfg.InitialCluster {
		conf.Servers = append(conf.Servers, raft.Server{ID: raft.ServerID(name), Address: raft.ServerAddress(addr), Suffrage: raft.Voter})
	}
	if err := raft.BootstrapCluster(rc, s.logs, s.logStore, snaps, s.transport, conf); err != nil {
		return fmt.Errorf("raftstore: bootstrap: %w", err)
	}
	s.hasState.Store(true)
	return nil
}

// Close stops the node. Writes in flight end with an error; open watches
// end. It is safe to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		close(s.stopCh)
		s.forwards.stop()
		var errs []error
		if s.raft != nil {
			errs = append(errs, s.raft.Shutdown().Error())
		}
		if s.rpc != nil {
			errs = append(errs, s.rpc.Close())
		}
		s.peers.close()
		if s.transport != nil {
			errs = append(errs, s.transport.Close())
		}
		if s.mux != nil {
			_ = s.mux.close()
		}
		s.raftConns.closeAll(5 * time.Second)
		s.wg.Wait()
		if s.hub != nil {
			s.hub.endAll(&Error{Code: ErrCodeUnavailable, Err: ErrClosed})
		}
		if s.logStore != nil {
			errs = append(errs, s.logStore.Close())
		}
		if s.fsm != nil {
			errs = append(errs, s.fsm.Close())
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}
