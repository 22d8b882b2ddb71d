# Tether: make demo runs everything locally, make test runs every test.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN_VERSION ?= v0.23.0
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_GEN_VERSION)
KUBECTL ?= kubectl
IMG ?= tether:dev
GO_TEST_FLAGS ?= -count=1 -timeout 45m -p 3

.PHONY: all
all: build

##@ Help
.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development
.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRDs and the manager's RBAC from the markers.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./api/..." paths="./controllers/..." output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) crd paths="./internal/testkind/..." output:crd:artifacts:config=internal/testkind/crd
	hack/sync-manifests.sh

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate the DeepCopy methods.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..." paths="./internal/testkind/..."

.PHONY: docs
docs: ## Regenerate the chart README's values table and docs/reference from the CRDs (tests fail while they are stale).
	go run ./cmd/docgen

.PHONY: fmt
fmt: ## gofmt the code.
	go fmt ./...

.PHONY: vet
vet: ## go vet the code.
	go vet ./...

.PHONY: verify-generated
verify-generated: manifests generate ## In CI: fail when generated files differ from what is committed.
	@if [ "$${CI:-}" = true ]; then \
		stale=$$(git status --porcelain -- api config internal/testkind charts); \
		if [ -n "$$stale" ]; then echo "$$stale"; echo "generated files are stale or not committed: run 'make manifests generate' and commit" >&2; exit 1; fi; \
	fi

# make test also fuzzes each target briefly (beyond the committed seeds).
# A count, not a duration: Go 1.26's fuzz coordinator can fail a target with
# "context deadline exceeded" when a duration runs out mid-input (go.dev/issue/75804).
TEST_FUZZTIME ?= 2000x
# Test artifacts (the browser test's screenshot) are kept here.
TETHER_ARTIFACTS_DIR ?= $(LOCALBIN)/test-artifacts

.PHONY: test
test: verify-generated fmt-check check-sizes vet envtest-assets npm-deps browser-deps lint-deps ## Run unit and integration tests (real API server, Hue simulator, DynamoDB Local, Chromium).
	@mkdir -p $(TETHER_ARTIFACTS_DIR)
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh)" TETHER_ARTIFACTS_DIR=$(TETHER_ARTIFACTS_DIR) go test $(GO_TEST_FLAGS) ./... 2>&1 | tee $(TETHER_ARTIFACTS_DIR)/go-test.log || { hack/test-failures.sh $(TETHER_ARTIFACTS_DIR)/go-test.log; exit 1; }
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(TEST_FUZZTIME)

.PHONY: check-sizes
check-sizes: ## Fail when a tracked file over 1 MB is not on hack/check-tracked-sizes.sh's allow list.
	@hack/check-tracked-sizes.sh

.PHONY: fmt-check
fmt-check: ## Fail when gofmt would change a file.
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out" >&2; exit 1; fi

FUZZTIME ?= 30000x

.PHONY: fuzz
fuzz: ## Fuzz Hue answer decoding, colour conversion and the DynamoDB planner, FUZZTIME each; a failing input lands in testdata/fuzz (commit it with the fix).
	go test ./providers/hue/wire -run '^$$' -fuzz '^FuzzDecodeAnswer$$' -fuzztime $(FUZZTIME)
	go test ./providers/hue/wire -run '^$$' -fuzz '^FuzzBridgeAnswer$$' -fuzztime $(FUZZTIME)
	go test ./providers/hue/model -run '^$$' -fuzz '^FuzzColourRoundTrip$$' -fuzztime $(FUZZTIME)
	go test ./providers/dynamodb/plan -run '^$$' -fuzz '^FuzzPlan$$' -fuzztime $(FUZZTIME)

##@ Benchmarks
BENCH_FLAGS ?= -runs=3

.PHONY: bench
bench: bench-smoke ## Measure the default figures (1-7, 9-12, 14, 16-18) into bench/report.md and bench/report.json (about 40 min per run, three runs; BENCH_FLAGS=-quick for a smoke run).
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh)" go run ./cmd/bench $(BENCH_FLAGS)

.PHONY: bench-smoke
bench-smoke: envtest-assets npm-deps ## Run the whole bench harness at toy scale and check its report (about 4 min; a long run, so not in make test).
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh)" TETHER_BENCH_SMOKE=1 go test -count=1 -run '^TestQuickRunWritesTheReport$$' ./internal/bench

SOAK_DURATION ?= 30m
SOAK_FLAGS ?=

.PHONY: soak
soak: envtest-assets npm-deps ## Soak (issues 7, 28): SOAK_DURATION (30m) of drift, spec edits, bursts, flapping bridges, cut v2 streams, throttling and restarts over 328 lights on v1 and CLIP v2 bridges, groups and scenes, 330 tables (30 an AWSAccount's); writes soak/report.md and report.json, fails on a failed verdict (SOAK_FLAGS for more).
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh)" go run ./cmd/soak -duration=$(SOAK_DURATION) $(SOAK_FLAGS)

##@ Build
.PHONY: build
build: generate ## Build the manager and the Hue bridge simulator into bin/.
	go build -o $(LOCALBIN)/manager ./cmd/manager
	go build -o $(LOCALBIN)/huesim ./cmd/huesim

.PHONY: run
run: manifests generate ## Run the manager against the cluster in your kubeconfig.
	go run ./cmd/manager

.PHONY: docker-build
docker-build: ## Build the container image (needs a Docker engine).
	docker build -t $(IMG) .

DEMO_STATE ?= $(or $(TMPDIR),/tmp)/tether-demo

.PHONY: demo
demo: envtest-assets npm-deps ## Run the whole thing locally: API server, DynamoDB Local, Hue simulator with its page, operator.
	@echo ">> building the demo"
	go build -o $(LOCALBIN)/demo ./cmd/demo
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh)" $(LOCALBIN)/demo --state-dir=$(DEMO_STATE)

.PHONY: demo-down
demo-down: ## Stop a demo started in another terminal.
	@if [ -f $(DEMO_STATE)/demo.pid ]; then \
		pid=$$(cat $(DEMO_STATE)/demo.pid); kill -TERM $$pid 2>/dev/null || true; \
		for i in $$(seq 1 50); do kill -0 $$pid 2>/dev/null || break; sleep 0.2; done; \
		kill -0 $$pid 2>/dev/null && kill -KILL $$pid || true; \
		rm -f $(DEMO_STATE)/demo.pid; echo "demo stopped"; \
	else echo "no demo is running"; fi

##@ Deployment
.PHONY: install
install: manifests ## Install the CRDs into the cluster in your kubeconfig.
	$(KUBECTL) apply --server-side -k config/crd

.PHONY: uninstall
uninstall: manifests ## Remove the CRDs (and every object of those kinds) from the cluster.
	$(KUBECTL) delete --ignore-not-found -k config/crd

# deploy renders config/default with $(KUBECTL)'s kustomize and IMG as the
# manager's image, as build-installer does, and applies that.
.PHONY: deploy
deploy: manifests ## Deploy the operator (config/default, IMG as its image) to the cluster in your kubeconfig.
	KUBECTL=$(KUBECTL) IMG=$(IMG) hack/render-install.sh | $(KUBECTL) apply --server-side -f -

.PHONY: build-installer
build-installer: manifests generate envtest-assets ## Write dist/install.yaml: CRDs, RBAC and the manager in one file (IMG sets the image).
	@mkdir -p dist
	IMG=$(IMG) hack/render-install.sh > dist/install.yaml
	@echo "wrote dist/install.yaml"

# undeploy keeps the CRDs and every Tether object unless asked
# (docs/uninstall.md): nothing is left waiting for a finalizer.
.PHONY: undeploy
undeploy: ## Remove the operator, keeping CRDs and objects; DELETE_OBJECTS=true deletes the objects first (while it runs), DELETE_CRDS=true the CRDs after.
	KUBECTL=$(KUBECTL) DELETE_OBJECTS=$(DELETE_OBJECTS) DELETE_CRDS=$(DELETE_CRDS) hack/undeploy.sh

##@ Release
# The repository the image will be pushed to, without registry host in this
# file: the release workflow passes its own (docs/releasing.md).
IMAGE_REPOSITORY ?= tether

.PHONY: release
release: manifests generate envtest-assets ## Write dist/: the image for linux/amd64 and linux/arm64 (OCI image index, no Docker engine), SBOM, chart, install.yaml, SHA256SUMS (VERSION=x.y.z required).
	@if [ -z "$(VERSION)" ]; then echo "usage: make release VERSION=x.y.z [IMAGE_REPOSITORY=...]" >&2; exit 2; fi
	go run ./cmd/release -version $(VERSION) -image-repository $(IMAGE_REPOSITORY) -out dist

##@ Tools
.PHONY: envtest-assets
envtest-assets: ## Build kube-apiserver and etcd from the Go module proxy into bin/k8s (minutes, first run only).
	@hack/envtest-assets.sh >/dev/null

.PHONY: npm-deps
npm-deps: hack/npm/node_modules/.package-lock.json ## Install DynamoDB Local, dynalite and node-hue-api from the committed lock.
hack/npm/node_modules/.package-lock.json: hack/npm/package-lock.json
	cd hack/npm && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: browser-deps
browser-deps: ## Install Debian's Chromium for the browser test (only when missing).
	@if [ ! -x /usr/bin/chromium ]; then echo ">> installing chromium (Debian package) for the browser test"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; fi

.PHONY: lint-deps
lint-deps: ## Install Debian's shellcheck, which the release workflow's lint runs (only when missing).
	@if ! command -v shellcheck >/dev/null; then echo ">> installing shellcheck (Debian package) for the workflow lint"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq shellcheck >/dev/null; fi

$(CONTROLLER_GEN):
	@mkdir -p $(LOCALBIN)
	GOBIN=$(LOCALBIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv $(LOCALBIN)/controller-gen $@
