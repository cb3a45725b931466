package raftstore

import (
	"fmt"
	"testing"
)

// TestOwnWritesKeepsTheNewest: a slower, older write answered after a
// newer one does not replace it, and a delete hides the key from later
// reads even when an older write is answered after it.
func TestOwnWritesKeepsTheNewest(t *testing.T) {
	var w ownWrites
	w.wrote(Object{Key: "k", Rev: 7, Data: []byte("v7")}, 0)
	w.wrote(Object{Key: "k", Rev: 5, Data: []byte("v5")}, 0)
	if got, ok := w.get("k", 6); !ok || got.Rev != 7 || string(got.Data) != "v7" {
		t.Fatalf("get not older than 6: %v %s, want rev 7 v7", ok, got.Data)
	}
	if _, ok := w.get("k", 8); ok {
		t.Fatal("rev 7 served for a read not older than 8")
	}
	w.deleted("k", 9, 0)
	w.wrote(Object{Key: "k", Rev: 8, Data: []byte("v8")}, 0)
	if got, ok := w.get("k", 7); ok {
		t.Fatalf("deleted key served: rev %d %s", got.Rev, got.Data)
	}
	w.wrote(Object{Key: "k", Rev: 10, Data: []byte("v10")}, 0)
	if got, ok := w.get("k", 10); !ok || string(got.Data) != "v10" {
		t.Fatalf("re-created key: %v %s, want v10", ok, got.Data)
	}
	w.forget("k")
	if _, ok := w.get("k", 1); ok {
		t.Fatal("forgotten key served")
	}
}

// TestOwnWritesCopies: neither the caller's buffer nor a reader's copy
// aliases what ownWrites holds.
func TestOwnWritesCopies(t *testing.T) {
	var w ownWrites
	data := []byte("abc")
	w.wrote(Object{Key: "k", Rev: 1, Data: data}, 0)
	data[0] = 'x'
	got, _ := w.get("k", 1)
	got.Data[1] = 'y'
	if again, _ := w.get("k", 1); string(again.Data) != "abc" {
		t.Fatalf("held %s, want abc", again.Data)
	}
}

// TestOwnWritesBounded: a full map drops what the node's state applied
// first, then half of the rest; it never grows past its cap.
func TestOwnWritesBounded(t *testing.T) {
	var w ownWrites
	for i := range ownWritesCap {
		w.wrote(Object{Key: fmt.Sprint("k", i), Rev: uint64(i + 1)}, 0)
	}
	w.wrote(Object{Key: "new", Rev: ownWritesCap + 1}, 10) // revisions 1-10 applied
	if n := len(w.objs); n != ownWritesCap-10+1 {
		t.Fatalf("%d keys after evicting the applied ones, want %d", n, ownWritesCap-9)
	}
	if _, ok := w.get("k0", 1); ok {
		t.Fatal("an applied write was kept")
	}
	if _, ok := w.get("k10", 11); !ok {
		t.Fatal("a write not yet applied was dropped")
	}
	for i := range 20 {
		w.wrote(Object{Key: fmt.Sprint("more", i), Rev: uint64(2*ownWritesCap + i)}, 10)
	}
	if n := len(w.objs); n > ownWritesCap {
		t.Fatalf("%d keys, cap %d", n, ownWritesCap)
	}
	if _, ok := w.get("more19", 2*ownWritesCap+19); !ok {
		t.Fatal("the newest write was dropped")
	}
}
