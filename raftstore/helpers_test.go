package raftstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
)

// faultDeadline bounds every wait for the cluster to reach a condition. It
// is generous: the tests run with -race on small, busy machines.
const faultDeadline = 30 * time.Second

// faultEventually polls cond until it returns nil, failing the test with
// cond's last error once timeout has passed. It is the only way these tests
// wait: on a condition, never on a bare sleep.
func faultEventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within %v: %v", what, timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// faultObject returns a JSON object named name whose data member is pad
// bytes long.
func faultObject(name string, pad int) []byte {
	return []byte(fmt.Sprintf(`{"metadata":{"name":%q},"data":%q}`, name, strings.Repeat("x", pad)))
}

// faultStepContext returns a context for one step of a test, cancelled at
// the end of the test at the latest.
func faultStepContext(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// faultCheckGet reads key on s and checks that it exists at revision rev
// (any revision at or above rev when atLeast is set).
func faultCheckGet(ctx context.Context, s *raftstore.Store, key string, opts raftstore.ReadOptions, rev uint64, atLeast bool) error {
	o, err := s.Get(ctx, key, opts)
	if err != nil {
		return fmt.Errorf("%s: get %s (%v): %w", s.Name(), key, opts.Consistency, err)
	}
	if o.Rev != rev && !(atLeast && o.Rev > rev) {
		return fmt.Errorf("%s: get %s (%v): revision %d, want %d", s.Name(), key, opts.Consistency, o.Rev, rev)
	}
	if want := strconv.Quote(strconv.FormatUint(o.Rev, 10)); !strings.Contains(string(o.Data), `"resourceVersion":`+want) {
		return fmt.Errorf("%s: get %s: object %s does not carry resourceVersion %d", s.Name(), key, o.Data, o.Rev)
	}
	return nil
}

// faultCheckAbsent reads key on s and checks that it does not exist.
func faultCheckAbsent(ctx context.Context, s *raftstore.Store, key string, opts raftstore.ReadOptions) error {
	o, err := s.Get(ctx, key, opts)
	switch {
	case err == nil:
		return fmt.Errorf("%s: %s exists at revision %d, want absent", s.Name(), key, o.Rev)
	case !raftstore.IsNotFound(err):
		return fmt.Errorf("%s: get %s (%v): %w", s.Name(), key, opts.Consistency, err)
	}
	return nil
}

// faultSnapshotIndex returns the index of the newest snapshot s's raft node
// has taken or installed (0: none).
func faultSnapshotIndex(t testing.TB, s *raftstore.Store) uint64 {
	t.Helper()
	v, ok := s.LastSnapshotIndex()
	if !ok {
		t.Fatalf("%s: raft does not say its last snapshot index", s.Name())
	}
	return v
}

// Read options used throughout the fault tests.
var (
	faultMostRecent = raftstore.ReadOptions{Consistency: raftstore.MostRecent}
	faultAny        = raftstore.ReadOptions{Consistency: raftstore.Any}
)
