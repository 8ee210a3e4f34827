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

.PHONY: all build run test bench bench-library solvers fmt vet check highs reproduce clean

all: build

$(HIGHS_PC): scripts/highs-pkgconfig.sh go.mod go.sum
	scripts/highs-pkgconfig.sh $(HIGHS_DIR)

highs: $(HIGHS_PC)

build: $(HIGHS_PC)
	$(GO) build -o $(BIN) ./cmd/mmds

# The main job: exact optima tables on the embedded defaults, then a short
# certification: a quick training run on both paper models (fresh each time),
# verified against the optima and plotted. --report-only: a quick run's
# verdicts are shown, not turned into a failed make (mmds verify alone exits 1).
QUICK := results/quick
run: build
	$(BIN) binary
	@echo
	$(BIN) gauss
	@echo
	rm -rf $(QUICK)-gauss $(QUICK)-binary
	$(BIN) train gauss --preset quick --out $(QUICK)-gauss
	@echo
	$(BIN) train binary --preset quick --out $(QUICK)-binary
	@echo
	$(BIN) verify --summary --report-only $(QUICK)-gauss
	$(BIN) verify --summary --report-only $(QUICK)-binary
	$(BIN) plot $(QUICK)-gauss
	$(BIN) plot $(QUICK)-binary

test: $(HIGHS_PC)
	$(GO) test -count=1 ./...

bench: $(HIGHS_PC)
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# The long solver benchmark (docs/bench.md): writes the instance library and
# solves it with every solver that runs here at 10 s per solve. Install CBC
# and GLPK first with `make solvers` (they are optional).
BENCH_OUT := results/bench-library
bench-library: build
	rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)
	$(BIN) bench library $(BENCH_OUT)/lib
	$(BIN) bench run $(BENCH_OUT)/lib --highs-file --cbc --glpk --time-limit 10s \
		--profile $(BENCH_OUT)/profile.svg --plot $(BENCH_OUT)/scaling.svg --json-out $(BENCH_OUT)/runs.json --progress \
		| tee $(BENCH_OUT)/runs.txt

solvers:
	scripts/install-solvers.sh

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet: $(HIGHS_PC)
	$(GO) vet ./...

check: fmt vet test

# The paper's full protocol (Section V: 30 values of D, T = 1000 epochs, 15
# accepted trials per D) on both models. Hours on two cores; resumable: run it
# again after an interruption and finished trials are loaded, not retrained.
RESULTS ?= results
reproduce: build
	$(BIN) train gauss --preset paper --out $(RESULTS)/paper-gauss
	$(BIN) train binary --preset paper --out $(RESULTS)/paper-binary
	$(BIN) verify --report-only $(RESULTS)/paper-gauss
	$(BIN) verify --report-only $(RESULTS)/paper-binary
	$(BIN) plot $(RESULTS)/paper-gauss
	$(BIN) plot $(RESULTS)/paper-binary

clean:
	rm -rf bin $(HIGHS_DIR)
