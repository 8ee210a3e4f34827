# mmds — build, test and run with a project-local HiGHS.
#
# HiGHS comes from the pinned Go module github.com/bartolsthoorn/gohighs (its
# prebuilt static library and headers); scripts/highs-pkgconfig.sh turns it
# into a pkg-config folder under .highs/, which every Go command here uses.

SHELL := /bin/bash
HIGHS_DIR := $(CURDIR)/.highs
export PKG_CONFIG_PATH := $(HIGHS_DIR)/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
export CGO_ENABLED := 1
GO ?= go
HIGHS_PC := $(HIGHS_DIR)/pkgconfig/highs.pc
BIN := bin/mmds
CHECK_BIN := bin/mmds-check
# The revision mmds --version and certificates report, when Go's own VCS
# stamping is off.
LDFLAGS := -X github.com/mmds-project/mmds/internal/version.revision=$(shell git describe --always --dirty 2>/dev/null)

.PHONY: all build run test measurements wheel test-python test-slow test-slurm test-finite-long test-gauss-optimum bench-finite bench bench-epoch bench-gauss check-kernels bench-library learn-targets solvers fmt vet check highs reproduce clean

all: build

$(HIGHS_PC): scripts/highs-pkgconfig.sh go.mod go.sum
	scripts/highs-pkgconfig.sh $(HIGHS_DIR)

highs: $(HIGHS_PC)

# mmds-check (checker/, docs/check.md) is a module of its own that shares
# no code with mmds: it is built from its folder.
build: $(HIGHS_PC)
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/mmds
	cd checker && $(GO) build -o ../$(CHECK_BIN) .

# The main job: exact optima tables on the embedded defaults, then a short
# certification: a quick training run on both paper models (fresh each time),
# verified against the optima and plotted. --report-only: a quick run's
# verdicts are shown, not turned into a failed make (mmds verify alone exits 1).
# Its folders are its own (results/run-*): the README's quick start trains
# results/quick-* afresh rather than resuming them.
RUNDIR := results/run
run: build
	$(BIN) binary
	@echo
	$(BIN) gauss
	@echo
	rm -rf $(RUNDIR)-gauss $(RUNDIR)-binary
	$(BIN) train gauss --preset quick --out $(RUNDIR)-gauss
	@echo
	$(BIN) train binary --preset quick --out $(RUNDIR)-binary
	@echo
	$(BIN) verify --summary --report-only $(RUNDIR)-gauss
	$(BIN) verify --summary --report-only $(RUNDIR)-binary
	$(BIN) plot $(RUNDIR)-gauss
	$(BIN) plot $(RUNDIR)-binary
	@echo
	@echo "make run: the quick runs are in $(RUNDIR)-gauss and $(RUNDIR)-binary (results.json, trials/, the figures);"
	@echo "$(BIN) verify $(RUNDIR)-gauss prints a full certificate; the optimum tables above were printed, not saved."

test: $(HIGHS_PC)
	$(GO) test -count=1 ./...
	cd checker && $(GO) test -count=1 ./...

# The default suite with every random instance of the property tests, the
# long cases and the documented commands marked slow (-tags slow); make test
# runs the first instances of each. scripts/test-cpu.sh prints what each
# package's tests cost (docs/performance.md, "Test suite").
test-slow: $(HIGHS_PC)
	$(GO) test -count=1 -tags slow -timeout 60m ./...

# docs/measurements.md, the shape of the code in numbers (docs/design.md is
# the architecture): regenerate it after a change and compare.
measurements: $(HIGHS_PC)
	scripts/measure-design.sh > docs/measurements.md.tmp && mv docs/measurements.md.tmp docs/measurements.md

# The Python package (python/, docs/python.md): a platform wheel that
# carries bin/mmds, built offline with Debian's setuptools and wheel (no
# index, no build isolation) into dist/. make test-python installs it into a
# fresh virtual environment that sees Debian's torch and runs its tests and
# docs/python.md's example; scripts/install-python-deps.sh installs what
# both need (as root). Not part of make test.
PYTHON ?= /usr/bin/python3
wheel: build
	rm -rf python/build python/mmds.egg-info dist/mmds-*.whl
	cd python && MMDS_WHEEL_BINARY=$(CURDIR)/$(BIN) $(PYTHON) -m pip wheel --quiet --no-index --no-build-isolation \
		--no-deps --disable-pip-version-check --wheel-dir $(CURDIR)/dist .
	rm -rf python/build python/mmds.egg-info
	@ls dist/mmds-*.whl

test-python: wheel
	PYTHON=$(PYTHON) scripts/test-python.sh

# The Slurm end-to-end test: starts a single-node Slurm from Debian's
# slurm-wlm and munge (installed by scripts/slurm-local.sh when run as root),
# trains a quick sweep as an array throttled to %1, as one whose task is
# cancelled and resubmitted, and as arrays of 1 and of 2 shards; checks the merged
# results against a one-machine run. Minutes; not part of make test.
test-slurm: $(HIGHS_PC)
	$(GO) test -count=1 -tags slurm -run TestSlurmEndToEnd -v -timeout 30m ./cmd/mmds

# The optimum search (mmds gauss --optimum) at five thresholds with its
# default settings: the numerical bracket's width, the mechanism against X
# mod Δ, and nothing printed as proven beaten (about a minute).
test-gauss-optimum: $(HIGHS_PC)
	$(GO) test -tags slow -run TestOptimumSlow -count=1 -v ./gauss

# The long checks of column generation (docs/finite.md): 1,000 random
# instances against the ray LP, and the scale runs behind the targets.
test-finite-long: $(HIGHS_PC)
	$(GO) test -count=1 -run 'TestColGenAgainstRayLP' ./mip -args -colgen.instances=1000

bench-finite: $(HIGHS_PC)
	for nk in 5,1 5,2 5,3 6,1 6,2 8,2 12,2; do \
		$(GO) test -count=1 -timeout 60m -run TestColGenScale -v ./mip -args -colgen.scale=$$nk,60 | grep -E 'median|FAIL'; done

bench: $(HIGHS_PC)
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# Side-by-side: an Algorithm 1 epoch in mmds and in PyTorch on CPU (one
# thread each), in back-to-back pairs; prints each pair's ratio and the
# median. Needs Debian's python3-torch: scripts/install-torch.sh.
PAIRS ?= 3
bench-epoch: $(HIGHS_PC)
	scripts/bench-epoch.sh gauss $(PAIRS)
	scripts/bench-epoch.sh binary $(PAIRS)

# The Gaussian certificate beside an independent numpy computation, verify,
# plot and the caps (docs/performance.md); OLD=path/to/mmds adds before/after.
bench-gauss: $(HIGHS_PC)
	OLD=$(OLD) scripts/bench-gauss-certify.sh $(PAIRS)

# The assembly kernels and the portable ones (-tags purego) train to the
# same bits.
check-kernels: $(HIGHS_PC)
	scripts/check-kernels.sh

# The labels method's targets: quick sweeps on seeds 1–8 of the binary paper
# model and examples/finite-random-n6-k2.json, certified by mmds verify
# --reference best (docs/learn.md, "Targets"). Needs jq and bc.
learn-targets: build
	scripts/learn-targets.sh

# The long solver benchmark (docs/bench.md): writes the instance library and
# solves it with every solver that runs here (HiGHS in-process and on the
# file, CBC, GLPK, SYMPHONY, lp_solve), BENCH_SEEDS seeds, BENCH_LIMIT per
# solve; BENCH_ARGS adds flags (e.g. --tier easy,medium). Install the
# optional solvers first with `make solvers`.
BENCH_OUT := results/bench-library
BENCH_SEEDS ?= 3
BENCH_LIMIT ?= 60s
BENCH_WORKERS ?= 2
BENCH_ARGS ?=
bench-library: build
	rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)
	$(BIN) bench library $(BENCH_OUT)/lib
	$(BIN) bench run $(BENCH_OUT)/lib --all --seeds $(BENCH_SEEDS) --time-limit $(BENCH_LIMIT) --workers $(BENCH_WORKERS) $(BENCH_ARGS) \
		--profile $(BENCH_OUT)/profile.svg --plot $(BENCH_OUT)/scaling.svg --json-out $(BENCH_OUT)/runs.json \
		| tee $(BENCH_OUT)/runs.txt

solvers:
	scripts/install-solvers.sh

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet: $(HIGHS_PC)
	$(GO) vet ./...
	cd checker && $(GO) vet ./...

check: fmt vet test

# The paper's full protocol (Section V: 30 values of D, T = 1000 epochs, 15
# accepted trials per D) on both models. 41 minutes on two quiet cores (docs/reproduce.md); resumable: run it
# again after an interruption and finished trials are loaded, not retrained.
RESULTS ?= results
reproduce: build
	$(BIN) train gauss --preset paper --out $(RESULTS)/paper-gauss
	$(BIN) train binary --preset paper --out $(RESULTS)/paper-binary
	$(BIN) verify --report-only --certificate $(RESULTS)/paper-gauss/certificate.json $(RESULTS)/paper-gauss
	$(BIN) verify --report-only --certificate $(RESULTS)/paper-binary/certificate.json $(RESULTS)/paper-binary
	$(BIN) plot $(RESULTS)/paper-gauss
	$(BIN) plot $(RESULTS)/paper-binary

clean:
	rm -rf bin $(HIGHS_DIR) dist python/build python/mmds.egg-info
