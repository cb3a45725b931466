package history

// Fault is one window during which a failpoint was active.
type Fault struct {
	Name    string   `json:"name"`
	Targets []string `json:"targets,omitempty"`
	Start   int64    `json:"start"`
	End     int64    `json:"end"`
	Error   string   `json:"error,omitempty"` // injection or recovery failed
	// Restarts marks a fault whose recovery started the targets'
	// processes again (kill -9, wipe, leave).
	Restarts bool `json:"restarts,omitempty"`
}

// Sample is one poll of a node's status: its raft role, or why it did
// not answer.
type Sample struct {
	Node    string `json:"node"`
	Time    int64  `json:"time"`
	State   string `json:"state"` // Leader, Follower, Candidate, or "down"
	Term    uint64 `json:"term,omitempty"`
	Leader  string `json:"leader,omitempty"`
	Applied uint64 `json:"applied,omitempty"`
}
