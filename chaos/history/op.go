package history

// Outcome is what a client learned about an operation.
type Outcome string

// The outcomes of an operation.
const (
	// OK: the operation took effect and its result is known.
	OK Outcome = "ok"
	// Failed: the operation definitely did not take effect. Code holds
	// the HTTP status when the server said so (404, 409, 503, ...).
	Failed Outcome = "failed"
	// Unknown: the operation may or may not have taken effect (timeouts,
	// lost connections, unknown-outcome errors).
	Unknown Outcome = "unknown"
)

// Kind names an operation type.
type Kind string

// The operation kinds the workloads issue.
const (
	Get    Kind = "get"    // Most Recent get of one key
	Create Kind = "create" // create of one key with a fresh value
	Update Kind = "update" // update of one key with a resourceVersion precondition
	Patch  Kind = "patch"  // JSON merge patch of one key with a resourceVersion precondition
	Delete Kind = "delete" // unconditional delete of one key
	List   Kind = "list"   // list of the namespace; see ListMode
)

// ListMode names how a list asked for its resourceVersion.
type ListMode string

// The list modes of the list workload.
const (
	MostRecent   ListMode = "most-recent"    // rv unset
	Exact        ListMode = "exact"          // resourceVersionMatch=Exact, rv=N
	NotOlderThan ListMode = "not-older-than" // resourceVersionMatch=NotOlderThan, rv=N
)

// Item is one object as a read saw it: its key, the value under test and
// the resourceVersion that last changed it.
type Item struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	RV    int64  `json:"rv"`
}

// Op is one client operation. Times are nanoseconds since the run began;
// Complete is when the client gave up on an operation with an unknown
// outcome.
type Op struct {
	ID       int64   `json:"id"`
	Client   int     `json:"client"`
	Node     string  `json:"node"`
	Kind     Kind    `json:"kind"`
	Invoke   int64   `json:"invoke"`
	Complete int64   `json:"complete"`
	Outcome  Outcome `json:"outcome"`
	Code     int     `json:"code,omitempty"`  // HTTP status of a failure
	Error    string  `json:"error,omitempty"` // what went wrong, for the report
	// Resource is the collection the operation works on: its plural
	// (configmaps, or the custom resource's); empty in histories from
	// before there was more than one, which used configmaps only.
	Resource string `json:"resource,omitempty"`
	// Unserved marks a 404 for the resource's path rather than for an
	// object: the node did not serve the resource (a custom resource
	// whose definition it has not applied yet). It says nothing about
	// the object; a write answered so was not applied.
	Unserved bool `json:"unserved,omitempty"`
	// Version is the API version of the resource the request went
	// through, when the resource is served in several; empty for its
	// only version. Values are the register's, whatever the version.
	Version string `json:"version,omitempty"`

	// Register operations.
	Key         string `json:"key,omitempty"`
	Value       string `json:"value,omitempty"`        // written (create, update, patch) or read (get)
	PrecondRV   int64  `json:"precondRV,omitempty"`    // update, patch: the resourceVersion precondition
	PrecondVal  string `json:"precondValue,omitempty"` // update, patch: the value the precondition rv holds
	Found       bool   `json:"found,omitempty"`        // get: the key existed
	ResultRV    int64  `json:"rv,omitempty"`           // the object's rv after a write or get, or the list's rv
	RequestedRV int64  `json:"requestedRV,omitempty"`  // list: the rv asked for

	// List operations.
	Mode  ListMode `json:"mode,omitempty"`
	Limit int      `json:"limit,omitempty"`
	Pages []int64  `json:"pages,omitempty"` // the resourceVersion of each page
	Items []Item   `json:"items,omitempty"`
}

// Latency is how long the operation took in nanoseconds.
func (o *Op) Latency() int64 { return o.Complete - o.Invoke }

// IsWrite reports whether the operation changes the register.
func (o *Op) IsWrite() bool {
	return o.Sets() || o.Kind == Delete
}

// Sets reports whether the operation writes a value: a create, an update
// or a patch, which answer with the object and its new resourceVersion.
func (o *Op) Sets() bool {
	return o.Kind == Create || o.Kind == Update || o.Kind == Patch
}

// KeyLabel names the operation's key with its resource
// ("chaosobjects/o3-1"); a key of a history without resources is its own
// name.
func (o *Op) KeyLabel() string { return KeyLabel(o.Resource, o.Key) }

// KeyLabel names key of resource.
func KeyLabel(resource, key string) string {
	if resource == "" {
		return key
	}
	return resource + "/" + key
}
