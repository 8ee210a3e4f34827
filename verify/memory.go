package verify

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mmds-project/mmds/estimate"
	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/privatizer"
)

// A run's memory is budgeted in bytes, before the work: what its inputs
// hold once read (their dense expansion: a compact kernel table of a few
// hundred kilobytes is 256 MiB once read) and what certifying them takes,
// once per worker. A run whose estimate is above the budget is refused
// before it allocates what it would need.

// DefaultMaxMemory is the memory budget of a verify or certify run (1 GiB):
// with the estimates below the resident size stays under it (docs/verify.md
// has the measurements).
const DefaultMaxMemory int64 = 1 << 30

// baseMemory is what a run takes beside its inputs and its work — the
// binary, the runtime, the model and its envelope: 26–30 MiB measured,
// taken as 64 MiB.
const baseMemory int64 = 64 << 20

// ErrMemory is wrapped by the error of a run whose memory estimate is above
// its budget.
var ErrMemory = errors.New("verify: over the memory budget")

// MemoryError is a run's estimate against its budget.
type MemoryError struct {
	Need, Limit int64
	// What says where the estimate comes from.
	What string
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("needs about %s (%s), more than the memory budget of %s", About(e.Need), e.What, Bytes(e.Limit))
}

// Is reports ErrMemory.
func (e *MemoryError) Is(target error) bool { return target == ErrMemory }

// Bytes writes n bytes in binary units, as --max-memory reads them
// (1GiB, 768MiB, 4KiB, 12B): a whole number of the largest unit n is at
// least one of, rounded up, so that it is never less than n.
func Bytes(n int64) string {
	u, d := unit(n)
	return fmt.Sprintf("%d%s", (n+d-1)/d, u)
}

// About writes n bytes for reading: three significant digits of the largest
// unit n is at least one of (1.72GiB, 321MiB).
func About(n int64) string {
	u, d := unit(n)
	return fmt.Sprintf("%.3g%s", float64(n)/float64(d), u)
}

// unit is the largest binary unit n is at least one of, and its size.
func unit(n int64) (string, int64) {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	u := 0
	for u < len(units)-1 && n >= 1<<(10*(u+1)) {
		u++
	}
	return units[u], int64(1) << (10 * u)
}

// SoftLimit is the Go runtime's memory limit for a run of budget bytes
// (runtime/debug.SetMemoryLimit): 7/8 of it, so that the collector returns
// what the certificates leave behind before the resident size reaches the
// budget. Measured on the largest kernel, a run within the budget stays
// under it only with this limit (docs/verify.md).
func SoftLimit(budget int64) int64 { return budget - budget/8 }

// ParseBytes reads a memory size: a whole number and a unit, B, KiB, MiB,
// GiB or TiB (powers of 1024), or KB, MB, GB, TB (powers of 1000), with
// nothing else (no sign, no space, no fraction); at least 64 MiB, at most
// 1024 TiB.
func ParseBytes(s string) (int64, error) {
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	mult := int64(0)
	if i > 0 {
		mult = map[string]int64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
			"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[s[i:]]
	}
	if mult == 0 {
		return 0, fmt.Errorf("%s: want a whole number and a unit, B, KiB, MiB, GiB, TiB, KB, MB, GB or TB, with nothing between them (e.g. 2GiB)", safefile.Excerpt(s))
	}
	const most = 1 << 50
	var n int64
	for _, c := range s[:i] {
		if n = 10*n + int64(c-'0'); n > most {
			break
		}
	}
	if n > most/mult || n*mult > most {
		return 0, fmt.Errorf("%s: at most 1024TiB", safefile.Excerpt(s))
	}
	if n*mult < baseMemory {
		return 0, fmt.Errorf("%s: at least %s (what a run takes before its inputs)", safefile.Excerpt(s), Bytes(baseMemory))
	}
	return n * mult, nil
}

// fileCost is the memory a privatizer file's bytes b take while it is
// parsed and once parsed: a JSON file's numbers and arrays (measured
// before it is decoded), a bound for ONNX (float32 weights read as
// float64s beside the protobuf: 3 bytes a byte) and CSV (at most a number
// for every two bytes, with the text: 6 bytes a byte).
func fileCost(path string, b []byte) (int64, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".onnx":
		return 3 * int64(len(b)), nil
	case ".csv":
		return 6 * int64(len(b)), nil
	}
	s, err := jsonconf.Measure(b)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", privatizer.ErrInput, err)
	}
	return s.Bytes(), nil
}

// heldCost is what a parsed privatizer holds: its numbers and rows.
func heldCost(f privatizer.File) int64 {
	rows := 0
	switch {
	case f.Kernel != nil:
		rows = len(f.Kernel.Prob)
	case f.Channel != nil:
		rows = len(f.Channel.P)
	case f.Network != nil:
		for _, l := range f.Network.Layers {
			rows += len(l.W)
		}
	}
	return 8*f.Numbers() + 24*int64(rows)
}

// The working memory of certifying one privatizer (one worker's).
const (
	// kernelNodes is the largest Gauss–Hermite order of a kernel's
	// certificate (gauss.KernelCertNodes): q and r are nodes × cells.
	kernelNodes = 256
	// kernelCheckNodes bounds the nodes of the check rule's chunk.
	kernelCheckNodes = 512
	// networkWork is what a network's certificate takes beside its weights
	// (faces, quadrature panels): measured under 10 MiB on the examples.
	networkWork int64 = 64 << 20
)

// kernelWork is the working memory of certifying an n-cell, m-label
// kernel (gauss.KernelLosses): the table as one matrix (8nm), the sparse
// products' list of nonzeros (at most nm/8 entries of 24 bytes), and per
// observer, one at a time, q and r at 256 nodes (4096 bytes a cell), the
// products and gradients at 256 nodes (8192 bytes a label) and the check
// rule's chunk.
func kernelWork(n, m int64) int64 {
	return 11*n*m + 16*kernelNodes*n + 32*kernelNodes*m + 16*kernelCheckNodes*n
}

// workCost is the working memory of certifying f.
func workCost(f privatizer.File) int64 {
	switch {
	case f.Kernel != nil:
		return kernelWork(int64(len(f.Kernel.Prob)), int64(len(f.Kernel.Prob[0])))
	case f.Channel != nil:
		return 32*f.Numbers() + 1<<20
	}
	return networkWork + 32*f.Numbers()
}

// pointWork is the working memory of certifying a finalized point of a
// results directory.
func pointWork(p *learn.DResult) int64 {
	switch {
	case p.Kernel != nil && len(p.Kernel.Prob) > 0:
		return kernelWork(int64(len(p.Kernel.Prob)), int64(len(p.Kernel.Prob[0])))
	case p.Channel != nil:
		n := int64(0)
		for _, r := range p.Channel {
			n += int64(len(r))
		}
		return 32*n + 1<<20
	}
	n := int64(0)
	for _, nw := range p.Networks {
		for _, l := range nw.Layers {
			for _, r := range l.W {
				n += int64(len(r))
			}
		}
	}
	return networkWork + 32*n
}

// checkWork refuses a run whose base and held inputs (held) and work — the
// largest workers of works at once — exceed limit (0: DefaultMaxMemory).
func checkWork(limit, held int64, works []int64, workers int) error {
	limit = maxMemory(limit)
	works = slices.Clone(works)
	slices.Sort(works)
	slices.Reverse(works)
	var work int64
	for _, w := range works[:min(max(workers, 1), len(works))] {
		work += w
	}
	if need := held + work; need > limit {
		return &MemoryError{Need: need, Limit: limit, What: fmt.Sprintf("%s for the inputs once read, %s of work for %d of them at once", About(held), About(work), min(max(workers, 1), len(works)))}
	}
	return nil
}

// maxMemory is limit, or DefaultMaxMemory for 0.
func maxMemory(limit int64) int64 {
	if limit <= 0 {
		return DefaultMaxMemory
	}
	return limit
}

// checkMemory refuses certifying the run's finalized points with workers
// at once within limit (0: DefaultMaxMemory): its files held and the
// working memory of the largest points.
func (run *Run) checkMemory(limit int64, workers int) error {
	var works []int64
	for i := range run.Results.Points {
		if p := &run.Results.Points[i]; p.Finalized {
			works = append(works, pointWork(p))
		}
	}
	held := run.held
	if held == 0 { // a run not read from a folder (Parse)
		held = baseMemory
	}
	return checkWork(limit, held, works, workers)
}

// dataRowBytes bounds the working memory of mmds's estimators per row and
// feature of a data run's threshold (one worker's): every row's features
// as a sample and standardized (a slice each), k-NN's candidates of the
// five folds and of the whole training split, the MLP's buffers; the
// training and the test split's. A second worker added 257 bytes a row
// with two features (100,000 rows: 74 MB resident with one, 100 MB with
// two; docs/data.md), taken as 2·(64 + 48·features), plus the k-NN
// search's trees (estimate.TreeBytesPerRow).
func dataRowBytes(features int64) int64 {
	return 2*(64+48*features) + estimate.TreeBytesPerRow(int(features))
}

// dataWork is the working memory of judging one threshold of run: mmds's
// estimators of every observer, one at a time, fitted to every row (a
// binary release as two rows an example), or a channel's plug-in rules
// and the plug-in optimum's LP.
func (run *DataRun) dataWork() int64 {
	rows := int64(run.Spec.Rows)
	if run.usesChannel() {
		return 16*rows + 1<<20
	}
	if run.Results.Config.Model.BinaryRelease() {
		rows *= 2
	}
	features := int64(1)
	for _, o := range run.Spec.Observers() {
		features = max(features, 1+int64(len(o)))
	}
	return rows * dataRowBytes(features)
}

// checkMemory refuses judging the run's thresholds with workers at once
// within limit (0: DefaultMaxMemory): its files and table held and the
// estimators' working memory per threshold.
func (run *DataRun) checkMemory(limit int64, workers int) error {
	return checkWork(limit, run.held, slices.Repeat([]int64{run.dataWork()}, len(run.Results.Config.D)), workers)
}
