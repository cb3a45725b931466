package cluster

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/raftapi/raftapi/raftstore"
)

// metrics is one node's Prometheus registry: kube-apiserver's request
// metrics, the raft and store gauges (read at scrape time) and the store's
// write and watch counters. Each node has its own registry, so several
// nodes can run in one process.
type metrics struct {
	registry *prometheus.Registry

	requests       *prometheus.CounterVec
	requestLatency *prometheus.HistogramVec
	applyLatency   *prometheus.HistogramVec
	watchEvents    prometheus.Counter
	watchCatchUps  prometheus.Counter
	labels         *resourceLabels
}

// requestBuckets are kube-apiserver's apiserver_request_duration_seconds
// buckets.
var requestBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// apiserverComponent is the component label of requests served by the API.
const apiserverComponent = "apiserver"

var _ raftstore.Observer = (*metrics)(nil)

func newMetrics(s *raftstore.Store) *metrics {
	m := newRequestMetrics()
	m.registry.MustRegister(newStoreCollector(s))
	s.SetObserver(m)
	return m
}

// newRequestMetrics returns the registry without the store's collector.
func newRequestMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "Counter of apiserver requests broken out for each verb, API resource, client, and HTTP response code.",
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		requestLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component; a WATCH is observed when its stream ends.",
			Buckets: requestBuckets,
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		applyLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "raftapi_apply_duration_seconds",
			Help:    "Time from a store write call to its result (committed, rejected or failed), by operation.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"operation"}),
		watchEvents: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "raftapi_watch_events_sent_total",
			Help: "Watch events (added, modified, deleted, bookmark) delivered by the store to watch streams.",
		}),
		watchCatchUps: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "raftapi_watch_catch_ups_total",
			Help: "Times a watch fell behind its buffer of events and read the events it missed from the history.",
		}),
		labels: &resourceLabels{seen: map[resourceKey]bool{}},
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.requestLatency, m.applyLatency, m.watchEvents, m.watchCatchUps,
	)
	return m
}

// handler serves the registry in the Prometheus exposition formats.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.registry,
	})
}

// WriteDone implements raftstore.Observer.
func (m *metrics) WriteDone(op string, d time.Duration, _ error) {
	m.applyLatency.WithLabelValues(op).Observe(d.Seconds())
}

// WatchEventSent implements raftstore.Observer.
func (m *metrics) WatchEventSent() { m.watchEvents.Inc() }

// WatchCaughtUp implements raftstore.Observer.
func (m *metrics) WatchCaughtUp() { m.watchCatchUps.Inc() }

// instrument counts and times every request h serves. A request is
// recorded when h returns, so a WATCH is timed over its whole stream.
func (m *metrics) instrument(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := m.labels.bound(requestInfoOf(r))
		rec := &statusRecorder{ResponseWriter: w}
		start := time.Now()
		returned := false
		defer func() {
			code := rec.code
			switch {
			case code != 0:
			case returned:
				code = http.StatusOK // nothing written
			default:
				code = http.StatusInternalServerError // h panicked; net/http aborts the response
			}
			m.observeRequest(info, code, time.Since(start))
		}()
		h.ServeHTTP(rec, r)
		returned = true
	})
}

func (m *metrics) observeRequest(info requestInfo, code int, d time.Duration) {
	m.requests.WithLabelValues(info.verb, info.group, info.version, info.resource, info.subresource, info.scope,
		apiserverComponent, strconv.Itoa(code)).Inc()
	m.requestLatency.WithLabelValues(info.verb, info.group, info.version, info.resource, info.subresource, info.scope,
		apiserverComponent).Observe(d.Seconds())
}

// statusRecorder remembers the status code of a response. It forwards
// Flush (watch streams flush every event) and unwraps for
// http.ResponseController.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.code == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (r *statusRecorder) Flush() {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// maxResourceLabels bounds the distinct group/version/resource/subresource
// combinations the request metrics label. kube-apiserver only labels the
// resources it serves; here the path alone decides, so requests for
// made-up resources would otherwise add series without end. Past the
// bound, a new combination is labelled resource "other".
const maxResourceLabels = 256

type resourceKey struct{ group, version, resource, subresource string }

type resourceLabels struct {
	mu   sync.Mutex
	seen map[resourceKey]bool
}

func (l *resourceLabels) bound(info requestInfo) requestInfo {
	if info.resource == "" {
		return info
	}
	k := resourceKey{info.group, info.version, info.resource, info.subresource}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[k] {
		return info
	}
	if len(l.seen) >= maxResourceLabels {
		return requestInfo{verb: info.verb, resource: "other", scope: info.scope}
	}
	l.seen[k] = true
	return info
}

// storeCollector reads the node's raft and store gauges at scrape time.
type storeCollector struct {
	store *raftstore.Store

	state, term, commit, applied, lastLog, peers, leaderChanges *prometheus.Desc
	watchers, window, compacted, dbSize                         *prometheus.Desc
}

// raftStates are the values of raftapi_raft_state's state label.
var raftStates = []string{"Follower", "Candidate", "Leader", "Shutdown"}

func newStoreCollector(s *raftstore.Store) *storeCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &storeCollector{
		store:         s,
		state:         d("raftapi_raft_state", "The node's raft state: 1 for the current state, 0 for the others.", "state"),
		term:          d("raftapi_raft_term", "The node's current raft term."),
		commit:        d("raftapi_raft_commit_index", "The highest raft log index the node knows committed."),
		applied:       d("raftapi_raft_applied_index", "The raft log index applied to the node's state: its current resourceVersion."),
		lastLog:       d("raftapi_raft_last_log_index", "The last index in the node's raft log."),
		peers:         d("raftapi_raft_peers", "The number of other voters in the node's latest raft configuration."),
		leaderChanges: d("raftapi_raft_leader_changes_total", "Leader changes the node has observed since it started."),
		watchers:      d("raftapi_watchers", "Open watches on the node's store."),
		window:        d("raftapi_history_window_revisions", "Width of the retained revision history: applied index minus compacted revision."),
		compacted:     d("raftapi_compacted_revision", "The compaction boundary: older revisions are no longer readable."),
		dbSize:        d("raftapi_storage_db_size_bytes", "Size of the node's state database file in bytes."),
	}
}

// Describe implements prometheus.Collector.
func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.state, c.term, c.commit, c.applied, c.lastLog, c.peers,
		c.leaderChanges, c.watchers, c.window, c.compacted, c.dbSize} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.store.Status()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, s := range raftStates {
		v := 0.0
		if s == st.State {
			v = 1
		}
		gauge(c.state, v, s)
	}
	gauge(c.term, float64(st.Term))
	gauge(c.commit, float64(st.CommitIndex))
	gauge(c.applied, float64(st.AppliedIndex))
	ch <- prometheus.MustNewConstMetric(c.leaderChanges, prometheus.CounterValue, float64(st.LeaderChanges))
	gauge(c.watchers, float64(st.Watchers))
	gauge(c.window, float64(st.AppliedIndex-min(st.Compacted, st.AppliedIndex)))
	gauge(c.compacted, float64(st.Compacted))
	gauge(c.dbSize, float64(c.store.DBSize()))
	stats := c.store.Stats()
	if v, err := strconv.ParseUint(stats["last_log_index"], 10, 64); err == nil {
		gauge(c.lastLog, float64(v))
	}
	if v, err := strconv.ParseUint(stats["num_peers"], 10, 64); err == nil {
		gauge(c.peers, float64(v))
	}
}
