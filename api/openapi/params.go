package openapi

// param is one request parameter of an operation.
type param struct {
	name        string
	in          string // "path" or "query"
	typ         string // "string", "integer" or "boolean"
	description string
	required    bool
}

// Path parameters.
var (
	paramName      = param{"name", "path", "string", "name of the object", true}
	paramNamespace = param{"namespace", "path", "string", "object name and auth scope, such as for teams and projects", true}
)

// Query parameters, named and typed as kube-apiserver's.
var (
	paramPretty = param{"pretty", "query", "string",
		"If 'true', then the output is pretty printed.", false}
	paramDryRun = param{"dryRun", "query", "string",
		"When present, indicates that modifications should not be persisted. The only valid value is All: all dry run stages are processed.", false}
	paramFieldManager = param{"fieldManager", "query", "string",
		"fieldManager is a name associated with the actor or entity that is making these changes. It is required for apply requests (application/apply-patch) and optional otherwise.", false}
	paramFieldValidation = param{"fieldValidation", "query", "string",
		"fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (the default) or Strict.", false}
	paramForce = param{"force", "query", "boolean",
		"Force is going to \"force\" Apply requests: the request re-acquires conflicting fields owned by other managers. It must be unset for non-apply patch requests.", false}
	paramGracePeriodSeconds = param{"gracePeriodSeconds", "query", "integer",
		"The duration in seconds before the object should be deleted. Zero means delete immediately.", false}
	paramOrphanDependents = param{"orphanDependents", "query", "boolean",
		"Deprecated: please use the PropagationPolicy. Should the dependent objects be orphaned.", false}
	paramPropagationPolicy = param{"propagationPolicy", "query", "string",
		"Whether and how garbage collection will be performed: Orphan, Background or Foreground.", false}
	paramAllowWatchBookmarks = param{"allowWatchBookmarks", "query", "boolean",
		"allowWatchBookmarks requests watch events with type \"BOOKMARK\". Servers may send them at their discretion.", false}
	paramContinue = param{"continue", "query", "string",
		"The continue option should be set when retrieving more results from the server: the value returned by the previous list call.", false}
	paramFieldSelector = param{"fieldSelector", "query", "string",
		"A selector to restrict the list of returned objects by their fields. Defaults to everything.", false}
	paramLabelSelector = param{"labelSelector", "query", "string",
		"A selector to restrict the list of returned objects by their labels. Defaults to everything.", false}
	paramLimit = param{"limit", "query", "integer",
		"limit is a maximum number of responses to return for a list call. If more items exist, the server sets the continue field on the list metadata.", false}
	paramResourceVersion = param{"resourceVersion", "query", "string",
		"resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset (most recent).", false}
	paramResourceVersionMatch = param{"resourceVersionMatch", "query", "string",
		"resourceVersionMatch determines how resourceVersion is applied to list calls: Exact or NotOlderThan.", false}
	paramSendInitialEvents = param{"sendInitialEvents", "query", "boolean",
		"sendInitialEvents=true may be set together with watch=true: the stream begins with synthetic events for the current state, ended by a bookmark annotated \"k8s.io/initial-events-end\".", false}
	paramTimeoutSeconds = param{"timeoutSeconds", "query", "integer",
		"Timeout for the list/watch call, regardless of any activity or inactivity.", false}
	paramWatch = param{"watch", "query", "boolean",
		"Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.", false}
)

// Parameter sets of the operations.
var (
	// writeParams are taken by create and update.
	writeParams = []param{paramDryRun, paramFieldManager, paramFieldValidation}
	// patchParams are taken by patch.
	patchParams = []param{paramDryRun, paramFieldManager, paramFieldValidation, paramForce}
	// deleteParams are taken by delete.
	deleteParams = []param{paramDryRun, paramGracePeriodSeconds, paramOrphanDependents, paramPropagationPolicy}
	// selectParams choose the objects of a list or deletecollection.
	selectParams = []param{paramContinue, paramFieldSelector, paramLabelSelector, paramLimit,
		paramResourceVersion, paramResourceVersionMatch, paramSendInitialEvents, paramTimeoutSeconds}
)

// listParams are taken by list; watch ones only when the resource serves
// watch.
func listParams(watch bool) []param {
	if !watch {
		return selectParams
	}
	return join([]param{paramAllowWatchBookmarks}, selectParams, []param{paramWatch})
}

// join concatenates parameter lists into a new one.
func join(lists ...[]param) []param {
	var out []param
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
