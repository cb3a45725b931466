# raftapi — the one entry point for building, testing and benchmarking.

GO          ?= go
BIN         ?= bin
PREFIX      ?= /usr/local
# Stamped into the binary (raftapi version): the nearest tag or the commit.
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT      ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS     := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
IMAGE       ?= raftapi:latest
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Packages where the race detector pays: the state machine, the store and
# its conformance suite, and the API (registry stores and codecs shared by
# concurrent requests, controllers beside the handlers).
RACE_PKGS   := ./fsm/... ./raftstore/... ./api/...

.PHONY: all help build install image test test-unit test-e2e test-deploy bench lint fmt vet staticcheck clean chaos chaos-short build-chaos
.PHONY: bench-cluster bench-scale bench-conversion bench-smoke build-bench

all: build

## help: list the targets
help:
	@awk 'sub(/^## /, "") { i = index($$0, ":"); printf "  %-13s %s\n", substr($$0, 1, i - 1), substr($$0, i + 2) }' $(MAKEFILE_LIST)

## build: the static binary bin/raftapi, version and commit stamped
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='$(LDFLAGS)' -o $(BIN)/raftapi ./cmd/raftapi

## install: build and copy raftapi to $(PREFIX)/bin (default /usr/local)
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN)/raftapi $(DESTDIR)$(PREFIX)/bin/raftapi

## image: the OCI image $(IMAGE), FROM scratch, from bin/raftapi (Docker engine)
image: build
	rm -rf $(BIN)/image && mkdir -p $(BIN)/image
	cp $(BIN)/raftapi deploy/image/Dockerfile $(BIN)/image/
	install -d -m 0700 $(BIN)/image/data
	docker build -t $(IMAGE) --label org.opencontainers.image.version=$(VERSION) \
		--label org.opencontainers.image.revision=$(COMMIT) $(BIN)/image

# make test: lint, unit and in-process cluster tests (race detector on the
# core), a short run of every fuzz target, then the end-to-end tests
# against the real binary, the deployment artifacts, a smoke run of the
# process benchmarks, then a short run of the fault harness.
## test: everything CI runs - lint, unit, short fuzzing, e2e, deploy, benchmark smoke and a short chaos run
test: lint test-unit fuzz-short test-e2e test-deploy bench-smoke chaos-short

## test-unit: unit and in-process cluster tests (race detector on the core)
test-unit:
	$(GO) test -race -count=1 -timeout 15m $(RACE_PKGS)
	$(GO) test -count=1 -timeout 10m $$($(GO) list ./... | grep -v -e /fsm -e /raftstore -e /api -e /e2e -e /deploy)

# test-deploy: the Kubernetes manifests and the systemd unit always (the
# unit checked by systemd-analyze, installed from Debian when missing); the
# image and the compose cluster only where a Docker engine answers.
## test-deploy: image, compose cluster, manifests and systemd unit
test-deploy: build systemd-analyze
	@if docker info >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory image && \
		RAFTAPI_BIN=$(CURDIR)/$(BIN)/raftapi RAFTAPI_IMAGE=$(IMAGE) $(GO) test -count=1 -timeout 30m ./deploy/...; \
	else \
		echo "test-deploy: no Docker engine answers: skipping the image and compose tests"; \
		RAFTAPI_BIN=$(CURDIR)/$(BIN)/raftapi $(GO) test -count=1 -timeout 10m ./deploy/...; \
	fi

.PHONY: systemd-analyze
systemd-analyze:
	@command -v systemd-analyze >/dev/null 2>&1 || { \
		echo "installing Debian's systemd package for systemd-analyze"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd; }

## test-e2e: end-to-end tests against the real binary with kubectl and client-go
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

## chaos: the 10-minute all-faults run of the fault harness (root)
chaos: build build-chaos
	$(BIN)/raftapi-chaos --binary $(BIN)/raftapi --name long --out $(CHAOS_OUT)/long $(CHAOS_FLAGS)

## chaos-short: a 75-second fault run (skipped without root)
chaos-short: build build-chaos
	$(BIN)/raftapi-chaos --binary $(BIN)/raftapi --name short --out $(CHAOS_OUT)/short --skip-unprivileged \
		--nodes 3 --duration 75s --quiet 10s --faults kill,partition,pause --tolerate=$(CHAOS_SHORT_TOLERATE)

# The Go fuzz targets, each for FUZZTIME; inputs that fail are written to
# the package's testdata/fuzz/ and kept in the repository, beside the
# seed corpus there. fuzz-short, part of make test, runs each for
# FUZZ_SHORT_TIME and spends at most 2s shrinking a new input (the
# default, FUZZ_MINIMIZE, would eat the run).
FUZZTIME        ?= 10s
FUZZ_SHORT_TIME ?= 10s
FUZZ_MINIMIZE   ?= 60s
FUZZ_TARGETS := FuzzDecodeCommand:./fsm FuzzCommandRoundTrip:./fsm FuzzStampResourceVersion:./fsm FuzzEqualButResourceVersion:./fsm FuzzValidJSON:./fsm FuzzDecodeContinue:./raftstore \
	FuzzParseToken:./pki FuzzApplyPatch:./api/registry FuzzCustomResourceBody:./api/apiextensions \
	FuzzDeclarativeRoundTrip:./api/apiextensions/declarative \
	FuzzVerifyToken:./api/serviceaccount \
	FuzzDecodeBody:./api/codec FuzzListSelectors:./api/handlers FuzzPeerRPC:./raftstore FuzzRaftTransport:./raftstore

## fuzz: run every fuzz target for FUZZTIME (default 10s)
.PHONY: fuzz fuzz-short
# Go 1.26's fuzz coordinator can fail a run with a bare "context deadline
# exceeded" when -fuzztime ends while a worker is mid-input, with no
# failing input behind it (golang/go#75804). The fix shipped in Go 1.27,
# so the fuzz targets run under FUZZ_GO: the go command with
# GOTOOLCHAIN=go1.27.3, which it fetches from the module proxy like any
# module. The build and every other test stay on the machine's Go.
FUZZ_GO ?= GOTOOLCHAIN=go1.27.3 $(GO)
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t%%:*} ($${t#*:}) for $(FUZZTIME)"; \
		$(FUZZ_GO) test -run '^$$' -fuzz "^$${t%%:*}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZ_MINIMIZE) $${t#*:}; \
	done

## fuzz-short: every fuzz target for FUZZ_SHORT_TIME (default 10s), as make test runs them
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZ_SHORT_TIME) FUZZ_MINIMIZE=2s

## bench: the benchmarks of the state machine, store, API and cluster
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s -timeout 30m ./fsm/... ./raftstore/... ./api/ ./cluster/

# The benchmarks of real processes (bench/, a module of its own, so that
# etcd's server stays out of raftapi's go.mod): a 3-node cluster of
# bin/raftapi driven through its HTTP API, and with BENCH_VS=etcd a
# 3-member etcd doing the same work; BENCH_VS=etcd,kube-apiserver adds
# kube-apiservers over another 3-member etcd. Sizes and lengths are flags of
# bin/raftapi-bench, or BENCH_* in the environment (BENCH_DURATION,
# BENCH_CLIENTS, BENCH_LIST_OBJECTS, BENCH_RESTART_OBJECTS, ...; see
# bin/raftapi-bench cluster -h and scale -h); BENCH_FLAGS passes more.
# Reports go to bin/bench-report/<target>/ (BENCH_OUT). bench-smoke, part
# of make test, runs each at tiny sizes and fails on any error or on a
# figure without operations.
BENCH_FLAGS ?=
BENCH_SMOKE_CLUSTER := -vs etcd,kube-apiserver -kube-apiserver $(BIN)/kube-apiserver -duration 1s -clients 1,4 -watch-rate 50
BENCH_SMOKE_SCALE   := -duration 1s -watchers 20 -watch-rate 50 -list-objects 200 -page-limit 50 -churn 50 \
	-restart-objects 300 -load-clients 16 -max-cutoff 0
BENCH_SMOKE_CONVERSION := -duration 1s -rounds 1 -clients 4 -list-objects 50 -watchers 4 -watch-rate 50

build-bench:
	cd bench && CGO_ENABLED=0 $(GO) build -trimpath -o $(CURDIR)/$(BIN)/raftapi-bench ./cmd/raftapi-bench

# kube-apiserver: the released kube-apiserver, unmodified, built from the
# nested module bench/kube-apiserver (which pins k8s.io/kubernetes), for
# BENCH_VS=kube-apiserver. Its version string is stamped from the pinned
# module version, as kubectl-current's is. A cold build takes about nine
# minutes on two cores.
.PHONY: kube-apiserver
## kube-apiserver: bin/kube-apiserver, the released kube-apiserver the benchmarks compare with (BENCH_VS)
kube-apiserver:
	cd bench/kube-apiserver && v=$$($(GO) list -m -f '{{.Version}}' k8s.io/kubernetes) && \
		minor=$$(echo $$v | cut -d. -f2) && \
		CGO_ENABLED=0 $(GO) build -trimpath -o $(CURDIR)/$(BIN)/kube-apiserver \
		-ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$$v -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$$minor" \
		k8s.io/kubernetes/cmd/kube-apiserver

# BENCH_VS naming kube-apiserver builds it first.
BENCH_VS_BUILD := $(if $(findstring kube-apiserver,$(BENCH_VS)),kube-apiserver)

## bench-cluster: 3 real nodes over HTTP: writes, gets, lists, watches at 1 and 64 clients (BENCH_VS=etcd,kube-apiserver: beside them)
bench-cluster: build build-bench $(BENCH_VS_BUILD)
	$(BIN)/raftapi-bench cluster -raftapi $(BIN)/raftapi -kube-apiserver $(BIN)/kube-apiserver $(BENCH_FLAGS)

## bench-scale: 1,000 watchers, a 100,000-object list, paged and Exact lists, restart with 1,000,000 objects, memory
bench-scale: build build-bench
	$(BIN)/raftapi-bench scale -raftapi $(BIN)/raftapi $(BENCH_FLAGS)

## bench-conversion: custom-resource gets, lists and watches through the storage version, None and a ConversionPolicy
bench-conversion: build build-bench
	$(BIN)/raftapi-bench conversion -raftapi $(BIN)/raftapi $(BENCH_FLAGS)

## bench-smoke: bench-cluster (with etcd and kube-apiserver), bench-scale and bench-conversion at tiny sizes; fails on errors or empty figures
bench-smoke: build build-bench kube-apiserver
	cd bench && $(GO) vet ./... && $(GO) test -count=1 ./...
	$(BIN)/raftapi-bench cluster -raftapi $(BIN)/raftapi -out $(BIN)/bench-report/smoke-cluster $(BENCH_SMOKE_CLUSTER)
	$(BIN)/raftapi-bench scale -raftapi $(BIN)/raftapi -out $(BIN)/bench-report/smoke-scale $(BENCH_SMOKE_SCALE)
	$(BIN)/raftapi-bench conversion -raftapi $(BIN)/raftapi -out $(BIN)/bench-report/smoke-conversion $(BENCH_SMOKE_CONVERSION)

## lint: gofmt, go vet and staticcheck
lint: fmt vet staticcheck

fmt:
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

## clean: remove bin/
clean:
	rm -rf $(BIN)
