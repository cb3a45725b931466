// Package fsm is raftapi's deterministic state machine.
//
// Every raft log entry of type LogCommand carries one Command: a type byte
// followed by the command's fields. Applying a command checks its
// preconditions against the current state and either changes exactly one
// object, stamping its metadata.resourceVersion with the entry's raft index,
// or returns a typed *Error. The state lives in a bbolt file:
//
//   - "current": storage key -> 8-byte revision + object JSON
//   - "rev":     8-byte big-endian revision -> one history record
//     {type, key, previous object and its revision}; the change's own
//     object is the key's current one or the previous object of the
//     key's next record, so it is not stored again (View.eventObject)
//   - "meta":    the last applied index and the compaction boundary
//
// All three are written in one bbolt transaction with the applied index,
// so a restart resumes from the stored applied index instead of replaying
// the log, and entries at or below it are skipped (replay guard). The
// transaction may carry several of raft's batches: with a commit delay it
// stays open until a reader needs what it holds, the delay passes or it is
// full (pending.go), and only then do its entries become visible to views
// and the listener. It is committed without fsync: the raft log is the
// durable record, and a state file that may have been torn by a machine
// restart is discarded and rebuilt from the snapshot and the log
// (durability.go).
//
// A key's revisions inside the history window are found through the key
// index, which the FSM keeps in memory and rebuilds from "rev" when it
// opens the file (keyindex.go); earlier releases kept it as a fourth
// bucket, which Open drops.
//
// Stamping the resourceVersion rewrites only that value in the object's
// bytes (StampResourceVersion): the object is not decoded on the apply
// path, which runs once per write on every node. The object is validated
// by validJSON, one pass that gives encoding/json.Valid's answer on every
// input (FuzzValidJSON holds it to that) at a third of its cost: whether
// an entry is applied or rejected must not depend on the release that
// applies it.
//
// The FSM never reads the clock, the network or a random source: everything
// non-deterministic (UIDs, timestamps, generated names) is decided before a
// command is proposed, and compaction is itself a replicated command.
package fsm
