package encryption

import (
	"sync"

	"github.com/raftapi/raftapi/api/registry"
)

// watcher passes on the events of a store watch with their objects
// decrypted. After an event it cannot decrypt it sends a WatchError
// event and ends, as kube-apiserver's watch does.
type watcher struct {
	inner registry.Watcher
	open  func(registry.WatchEvent) (registry.WatchEvent, error)
	out   chan registry.WatchEvent
	stop  chan struct{}
	once  sync.Once
}

var _ registry.Watcher = (*watcher)(nil)

// newWatcher starts passing on the events of inner through open.
func newWatcher(inner registry.Watcher, open func(registry.WatchEvent) (registry.WatchEvent, error)) *watcher {
	w := &watcher{inner: inner, open: open, out: make(chan registry.WatchEvent), stop: make(chan struct{})}
	go w.run()
	return w
}

// run passes events on until inner's channel closes, an event fails or
// Stop.
func (w *watcher) run() {
	defer close(w.out)
	defer w.inner.Stop()
	for {
		var ev registry.WatchEvent
		var ok bool
		select {
		case <-w.stop:
			return
		case ev, ok = <-w.inner.ResultChan():
			if !ok {
				return
			}
		}
		ev, err := w.open(ev)
		if err != nil {
			ev = registry.WatchEvent{Type: registry.WatchError, Key: ev.Key, Rev: ev.Rev, Err: err}
		}
		select {
		case <-w.stop:
			return
		case w.out <- ev:
		}
		if err != nil {
			return
		}
	}
}

// ResultChan implements registry.Watcher.
func (w *watcher) ResultChan() <-chan registry.WatchEvent { return w.out }

// Stop implements registry.Watcher.
func (w *watcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.inner.Stop()
}

// RequestProgress implements registry.Watcher.
func (w *watcher) RequestProgress() { w.inner.RequestProgress() }
