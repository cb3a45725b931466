package raftstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/raftapi/raftapi/fsm"
)

// A node that starts without raft state and joins an existing cluster may
// be a member that lost its data (a wiped disk, a replaced machine) and
// comes back under its old name. Raft's safety rests on every voter
// remembering what it acknowledged and whom it voted for: the entries it
// stored count towards commitment, and an election needs a majority that
// holds every committed entry. A voter that forgot them and votes again
// can elect a leader missing writes that were acknowledged: say an entry
// is committed on n1 and n2, n1 loses its disk and n2 stops; n3, which
// never got the entry, asks for votes, and the empty n1 grants it. n3
// then leads without the entry, and n2's state, which applied it, parts
// from the others'.
//
// etcd refuses such a member and makes the operator remove and re-add it
// under a new member ID. Here the node itself stays out of elections until
// it has caught up past a point that covers everything its former self
// may have acknowledged:
//
//   - it keeps a marker file (rejoinFile) in its data directory from the
//     moment it starts without raft state until it is admitted, across
//     restarts;
//   - meanwhile it refuses RequestVote, pre-vote and TimeoutNow requests
//     (rejoinTransport; only a cluster still forming gets its vote, see
//     refusedWhileRejoining) and never starts an election itself (its
//     election timers are set to rejoinElectionTimeout);
//   - as soon as it knows a leader, it proposes an admission entry
//     (fsm.CmdAdmit) through it. Once the node has applied that entry, its
//     log holds every entry committed before it, and an entry its former
//     self stored that is not among them can never commit: it sits at an
//     index the committed log holds differently, or past the admission
//     entry with an older term. From then on its vote is sound; the node
//     removes the marker and restores its election timers.
//
// Storing entries and acknowledging them goes on meanwhile: an
// acknowledgement only claims what the node holds now. A new node added
// before it ever started (a learner, or a voter added ahead of its first
// start) goes through the same steps: it cannot be told from a wiped one,
// and the steps take one round trip once it has caught up.
//
// A node that bootstraps a new cluster (Bootstrap, or Config.InitialCluster
// without DeferBootstrap) is not rejoining: its raft state is the
// cluster's first.

// rejoinFile marks a data directory whose node is waiting for admission.
const rejoinFile = "rejoining"

// rejoinElectionTimeout is the heartbeat and election timeout of a node
// waiting for admission: long enough that it never stands for election.
const rejoinElectionTimeout = 24 * time.Hour

// rejoinRetry is how often a waiting node tries to propose its admission
// while it knows no leader or the proposal fails.
const rejoinRetry = 250 * time.Millisecond

// errRejoining answers the vote requests of a node waiting for admission.
var errRejoining = errors.New("raftstore: this node lost or never had its raft state and does not vote until it is admitted")

// openRejoin decides, before raft starts, whether this node must wait for
// admission: it holds the marker from an earlier start, or it has no raft
// state and will not bootstrap one itself.
func (s *Store) openRejoin(hasState bool) error {
	marker := filepath.Join(s.cfg.DataDir, rejoinFile)
	switch {
	case !hasState && !s.cfg.DeferBootstrap:
		return removeIfExists(marker) // it bootstraps the cluster's first state
	case fileExists(marker):
	case !hasState:
		if err := writeMarker(marker); err != nil {
			return err
		}
	default:
		return nil
	}
	s.rejoining.Store(true)
	s.cfg.Logger.Info("started without the raft state of an admitted member: not voting until the leader admits this node or it bootstraps a new cluster")
	return nil
}

// writeMarker creates path durably: the marker must outlive a crash that
// leaves raft state behind.
func writeMarker(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("raftstore: create %s: %w", path, err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = SyncDir(filepath.Dir(path))
	}
	if err != nil {
		return fmt.Errorf("raftstore: create %s: %w", path, err)
	}
	return nil
}

// holdElections gives a waiting node's raft configuration timers that
// never run out.
func holdElections(rc *raft.Config) {
	rc.HeartbeatTimeout = rejoinElectionTimeout
	rc.ElectionTimeout = rejoinElectionTimeout
}

// rejoinLoop proposes this node's admission through the leader and waits
// until the node has applied it.
func (s *Store) rejoinLoop() {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stopCh:
			cancel()
		case <-ctx.Done():
		}
	}()
	for s.rejoining.Load() { // until admitted, or bootstrapped meanwhile
		if index := s.proposeAdmission(ctx); index != 0 {
			if s.waitForIndex(ctx, index) != nil {
				return // stopping
			}
			if err := s.finishRejoin("applied its admission", index); err != nil {
				s.cfg.Logger.Error("admission", "err", err)
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(rejoinRetry):
		}
	}
}

// proposeAdmission proposes this node's admission entry through the
// leader and returns its index, 0 when there is no leader or the proposal
// failed. A leader of an earlier release refuses the command as invalid:
// the node keeps asking until the leader runs one that knows it.
func (s *Store) proposeAdmission(ctx context.Context) uint64 {
	if addr, _ := s.raft.LeaderWithID(); addr == "" {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ApplyTimeout)
	defer cancel()
	res, err := s.proposeOnce(ctx, (&fsm.Command{Type: fsm.CmdAdmit, Key: s.cfg.Name}).Encode())
	if err == nil && res.Err != nil {
		err = res.Err
	}
	if err != nil {
		s.cfg.Logger.Debug("propose admission", "err", err)
		return 0
	}
	return res.Rev
}

// finishRejoin ends the wait: the marker goes, and the node votes and
// stands for election again.
func (s *Store) finishRejoin(why string, index uint64) error {
	s.rejoinMu.Lock()
	defer s.rejoinMu.Unlock()
	if !s.rejoining.Load() {
		return nil
	}
	if err := removeIfExists(filepath.Join(s.cfg.DataDir, rejoinFile)); err != nil {
		return err
	}
	if err := SyncDir(s.cfg.DataDir); err != nil {
		return err
	}
	s.rejoining.Store(false)
	if r := s.raftReady.Load(); r != nil {
		rc := r.ReloadableConfig()
		rc.HeartbeatTimeout, rc.ElectionTimeout = s.cfg.HeartbeatTimeout, s.cfg.ElectionTimeout
		if err := r.ReloadConfig(rc); err != nil {
			return fmt.Errorf("raftstore: restore election timers: %w", err)
		}
	}
	s.cfg.Logger.Info("admitted: voting again", "why", why, "index", index)
	return nil
}

// Rejoining reports whether this node is waiting for admission and does
// not vote meanwhile.
func (s *Store) Rejoining() bool { return s.rejoining.Load() }

// rejoinTransport is the raft transport of a node that started waiting
// for admission: it answers vote, pre-vote and leadership-transfer
// requests with errRejoining while the node waits, and passes every other
// request on. raft reads one consumer channel for its whole life, so the
// hop through filter stays until the process restarts (a node that
// started admitted gets the network transport itself); heartbeats take
// the transport's own fast path and never pass it.
type rejoinTransport struct {
	*raft.NetworkTransport
	s    *Store
	once sync.Once
	out  chan raft.RPC
}

func newRejoinTransport(t *raft.NetworkTransport, s *Store) *rejoinTransport {
	return &rejoinTransport{NetworkTransport: t, s: s, out: make(chan raft.RPC)}
}

// Consumer implements raft.Transport.
func (t *rejoinTransport) Consumer() <-chan raft.RPC {
	t.once.Do(func() { go t.filter(t.NetworkTransport.Consumer()) })
	return t.out
}

func (t *rejoinTransport) filter(in <-chan raft.RPC) {
	for {
		select {
		case rpc := <-in:
			if t.s.rejoining.Load() && refusedWhileRejoining(rpc.Command) {
				rpc.Respond(nil, errRejoining)
				continue
			}
			select {
			case t.out <- rpc:
			case <-t.s.stopCh:
				return
			}
		case <-t.s.stopCh:
			return
		}
	}
}

// refusedWhileRejoining reports whether a waiting node refuses cmd: a
// request to stand for election, or a vote or pre-vote for a candidate
// whose log goes past the configuration a bootstrap writes (index 1).
//
// A candidate holding nothing more is a cluster forming: the gossip
// bootstrap makes every expected node bootstrap the same voters, but one
// that sees another's raft state before its own round does not bootstrap
// and waits to be added; it must vote, or the first election never
// gathers a quorum and no leader ever admits anyone. Its vote cannot
// elect a leader missing committed entries while the others keep theirs:
// a committed entry follows a leader's first entry at index 2, held by a
// majority, and those refuse a candidate whose log ends at 1.
func refusedWhileRejoining(cmd any) bool {
	switch c := cmd.(type) {
	case *raft.RequestVoteRequest:
		return c.LastLogIndex > bootstrapIndex
	case *raft.RequestPreVoteRequest:
		return c.LastLogIndex > bootstrapIndex
	case *raft.TimeoutNowRequest:
		return true
	}
	return false
}

// bootstrapIndex is the index of the configuration raft's bootstrap
// writes, the only entry of a cluster that has not elected a leader yet.
const bootstrapIndex = 1
