package figures

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// memTarget is a Target in memory: a map, and a channel per watcher.
type memTarget struct {
	mu       sync.Mutex
	keys     map[string]string
	watchers map[string][]chan string
}

var _ Target = (*memTarget)(nil)

func newMemTarget() *memTarget {
	return &memTarget{keys: map[string]string{}, watchers: map[string][]chan string{}}
}

func (m *memTarget) Name() string                          { return "mem" }
func (m *memTarget) Prepare(context.Context, string) error { return nil }

func (m *memTarget) put(space, name, value string, mustExist bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := space + "/" + name
	if _, ok := m.keys[k]; ok != mustExist {
		return fmt.Errorf("%s: exists %v", k, ok)
	}
	m.keys[k] = value
	for _, ch := range m.watchers[space] {
		ch <- name
	}
	return nil
}

func (m *memTarget) Create(_ context.Context, _ int, space, name, value string) error {
	return m.put(space, name, value, false)
}

func (m *memTarget) Update(_ context.Context, _ int, space, name, value string) error {
	return m.put(space, name, value, true)
}

func (m *memTarget) Delete(_ context.Context, _ int, space, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.keys[space+"/"+name]; !ok {
		return errors.New("not found")
	}
	delete(m.keys, space+"/"+name)
	return nil
}

func (m *memTarget) Get(_ context.Context, _ int, space, name string, _ bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.keys[space+"/"+name]; !ok {
		return errors.New("not found")
	}
	return nil
}

func (m *memTarget) List(_ context.Context, _ int, space string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k := range m.keys {
		if strings.HasPrefix(k, space+"/") {
			n++
		}
	}
	return n, nil
}

func (m *memTarget) Watch(_ context.Context, _ int, space string) (Stream, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch := make(chan string, 1<<16)
	m.watchers[space] = append(m.watchers[space], ch)
	return &memStream{ch: ch, done: make(chan struct{})}, nil
}

type memStream struct {
	ch   chan string
	done chan struct{}
	once sync.Once
}

func (s *memStream) Next() (string, error) {
	select {
	case name := <-s.ch:
		return name, nil
	case <-s.done:
		return "", errors.New("closed")
	}
}

func (s *memStream) Close() { s.once.Do(func() { close(s.done) }) }
