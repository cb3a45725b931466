# raftapi — the one entry point for building, testing and benchmarking.

GO          ?= go
BIN         ?= bin
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Packages where the race detector pays: the state machine, the store and
# its conformance suite, and the API (registry stores and codecs shared by
# concurrent requests, controllers beside the handlers).
RACE_PKGS   := ./fsm/... ./raftstore/... ./api/...

.PHONY: all build test test-unit test-e2e bench lint fmt vet staticcheck clean chaos chaos-short build-chaos

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o $(BIN)/raftapi ./cmd/raftapi

# make test: lint, unit and in-process cluster tests (race detector on the
# core), then the end-to-end tests against the real binary, then a short
# run of the fault harness.
test: lint test-unit test-e2e chaos-short

test-unit:
	$(GO) test -race -count=1 -timeout 15m $(RACE_PKGS)
	$(GO) test -count=1 -timeout 10m $$($(GO) list ./... | grep -v -e /fsm -e /raftstore -e /api -e /e2e)

test-e2e: build kubectl-current
	RAFTAPI_BIN=$(CURDIR)/$(BIN)/raftapi RAFTAPI_KUBECTL_CURRENT=$(CURDIR)/$(BIN)/kubectl-current \
		$(GO) test -count=1 -timeout 15m ./cmd/raftapi/e2e/...

# kubectl-current: an unmodified kubectl from the newest k8s.io/kubectl
# release (the nested module cmd/kubectl-current pins it), for the e2e
# tests to run beside the v1.32 kubectl on PATH. Its version string is
# stamped from the pinned module version (v0.X.Y is kubectl v1.X.Y).
.PHONY: kubectl-current
kubectl-current:
	cd cmd/kubectl-current && v=$$($(GO) list -m -f '{{.Version}}' k8s.io/kubectl | sed 's/^v0\./v1./') && \
		minor=$$(echo $$v | cut -d. -f2) && \
		CGO_ENABLED=0 $(GO) build -trimpath -o $(CURDIR)/$(BIN)/kubectl-current \
		-ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$$v -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$$minor" .

# The fault harness (chaos/): real processes in network namespaces, faults,
# checkers. Needs root; without it chaos-short says so and passes. Reports
# go to $(CHAOS_OUT); a failed run keeps its report there.
# chaos-short tolerates the anomaly kinds in CHAOS_SHORT_TOLERATE (comma-
# separated; none today): open product issues tracked in chaos/README.md,
# reported but not failing.
CHAOS_OUT            ?= $(CURDIR)/$(BIN)/chaos-report
CHAOS_FLAGS          ?= --nodes 3 --duration 10m --faults all
CHAOS_SHORT_TOLERATE ?=

build-chaos:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o $(BIN)/raftapi-chaos ./cmd/raftapi-chaos

chaos: build build-chaos
	$(BIN)/raftapi-chaos --binary $(BIN)/raftapi --name long --out $(CHAOS_OUT)/long $(CHAOS_FLAGS)

chaos-short: build build-chaos
	$(BIN)/raftapi-chaos --binary $(BIN)/raftapi --name short --out $(CHAOS_OUT)/short --skip-unprivileged \
		--nodes 3 --duration 75s --quiet 10s --faults kill,partition,pause --tolerate=$(CHAOS_SHORT_TOLERATE)

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s -timeout 30m ./fsm/... ./raftstore/... ./api/ ./cluster/

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
