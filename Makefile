# raftapi — the one entry point for building, testing and benchmarking.

GO          ?= go
BIN         ?= bin
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Packages where the race detector pays: the state machine, the store and
# its conformance suite.
RACE_PKGS   := ./fsm/... ./raftstore/...

.PHONY: all build test test-unit test-e2e bench lint fmt vet staticcheck clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o $(BIN)/raftapi ./cmd/raftapi

# make test: lint, unit and in-process cluster tests (race detector on the
# core), then the end-to-end tests against the real binary.
test: lint test-unit test-e2e

test-unit:
	$(GO) test -race -count=1 -timeout 15m $(RACE_PKGS)
	$(GO) test -count=1 -timeout 10m $$($(GO) list ./... | grep -v -e /fsm -e /raftstore -e /e2e)

test-e2e: build
	RAFTAPI_BIN=$(CURDIR)/$(BIN)/raftapi $(GO) test -count=1 -timeout 15m ./cmd/raftapi/e2e/...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s -timeout 30m ./fsm/... ./raftstore/...

lint: fmt vet staticcheck

fmt:
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

clean:
	rm -rf $(BIN)
