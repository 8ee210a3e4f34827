package privatizer

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/mmds-project/mmds/internal/decimal"
	"io"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
)

// ErrInput is wrapped by every error about a privatizer file's contents (as
// opposed to an I/O failure): the caller's input, not a failed computation.
// It is network.ErrInput, so that errors from both packages match it.
var ErrInput = network.ErrInput

// RowSumTol is how far a channel row may sum from 1. A channel exported from
// float32 PyTorch tensors (a softmax) sums to 1 within a few ulp of float32
// (≈ 1e-7 for a handful of outputs); 1e-6 accepts that and nothing coarser.
// Accepted rows are divided by their sum, and what that may hide is stated:
// Channel.Bound, the certificate's error.
const RowSumTol = 1e-6

// MaxAlphabet bounds both sides of a channel file, so that a malformed file
// cannot ask for a huge computation.
const MaxAlphabet = 4096

// Channel is a privatizer given as its channel P(F = f | X = x): P[x][f],
// one row per value x of X, one column per released value f (any output
// alphabet). Section II's privatizer k is a conditional law of F given X;
// on a finite model that is all there is to it.
type Channel struct {
	// Name is the file the channel was read from (for messages).
	Name string
	// P[x][f] = P(F = f | X = x): non-negative, finite, each row summing to
	// 1 within RowSumTol.
	P [][]float64
}

// Inputs is the number of rows, |X|.
func (c *Channel) Inputs() int { return len(c.P) }

// Outputs is the number of columns, the output alphabet size |F|.
func (c *Channel) Outputs() int {
	if len(c.P) == 0 {
		return 0
	}
	return len(c.P[0])
}

// Validate reports the first problem of c: no rows, ragged rows, a negative,
// NaN or infinite entry, or a row whose sum is off 1 by more than RowSumTol.
// Messages name the file, the row and the entry; they wrap ErrInput.
func (c *Channel) Validate() error {
	if len(c.P) == 0 {
		return c.errorf("no rows: want one row P(F=f | X=x) per value x of X")
	}
	if len(c.P) > MaxAlphabet {
		return c.errorf("%d rows: at most %d", len(c.P), MaxAlphabet)
	}
	m := len(c.P[0])
	if m == 0 || m > MaxAlphabet {
		return c.errorf("row 0 has %d entries: want between 1 and %d", m, MaxAlphabet)
	}
	for x, row := range c.P {
		if len(row) != m {
			return c.errorf("row %d has %d entries, row 0 has %d: every row must list the same outputs", x, len(row), m)
		}
		var s float64
		for f, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return c.errorf("entry [%d][%d] = %v: want a probability ≥ 0", x, f, v)
			}
			s += v
		}
		if math.Abs(s-1) > RowSumTol {
			return c.errorf("row %d sums to %.17g: want 1 within %g", x, s, RowSumTol)
		}
	}
	return nil
}

// CheckRows reports an error unless c has one row per value of X, n of them.
func (c *Channel) CheckRows(n int) error {
	if len(c.P) != n {
		return c.errorf("%d rows, but the model's X takes %d values: want one row per value of X", len(c.P), n)
	}
	return nil
}

func (c *Channel) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: channel %s: %s", ErrInput, c.Name, fmt.Sprintf(format, args...))
}

// Normalized returns c with each row divided by its sum: an exact channel
// (rows sum to 1 up to rounding) as mip.Mechanism, whose losses FiniteLosses
// computes. What the renormalization may hide is Bound.
func (c *Channel) Normalized() mip.Mechanism { return mip.Mechanism(c.P).Normalized() }

// rowSum is Σ_f row[f], summed in order.
func rowSum(row []float64) float64 {
	var s float64
	for _, v := range row {
		s += v
	}
	return s
}

// SumError is the largest distance of a row's sum from 1, max_x |Σ_f P[x][f] − 1|.
func (c *Channel) SumError() float64 {
	var e float64
	for _, row := range c.P {
		e = max(e, math.Abs(rowSum(row)-1))
	}
	return e
}

// Bound is the stated error of the losses FiniteLosses and BinaryLosses
// return for c on m: RiskShift of 2·|Σ_f P[x][f] − 1| per row (with 0-1
// losses, Σ_x π(x)·|Σ_f P[x][f] − 1|).
//
// The losses are those of the renormalized rows P̂_x = P_x/Σ_x, but a row
// that sums to 1 − ε_x says nothing about where its missing mass goes: a
// channel deployed from the file may put it on an output that reveals X. Any
// probability vector within ℓ1 distance ε_x of P_x (the deployed channels
// the file is consistent with) lies within 2ε_x of P̂_x (‖P̂_x − P_x‖₁ =
// ε_x), so every certified loss is within Bound of the loss of any such
// channel (RiskShift). Without it a row 1e-6 short could hide leakage behind
// an error of 0.
func (c *Channel) Bound(m mip.Finite) float64 {
	l1 := make([]float64, len(c.P))
	for x, row := range c.P {
		l1[x] = 2 * math.Abs(rowSum(row)-1)
	}
	return RiskShift(m, l1)
}

// FiniteLosses returns the exact Bayes losses of the channel on the finite
// model m: for each observer with side channel W and loss L,
//
//	Σ_{f,v} min_a Σ_x π(x) P(f|x) W(v|x) L(x, a)
//
// (mip.Finite.Risk), a finite sum, of the renormalized rows (Normalized):
// within Bound of the file's. The channel must have one row per value of X.
func (c *Channel) FiniteLosses(m mip.Finite) (loss.Losses, error) {
	if err := c.Validate(); err != nil {
		return loss.Losses{}, err
	}
	if err := c.CheckRows(m.N()); err != nil {
		return loss.Losses{}, err
	}
	p := c.Normalized()
	if err := m.ValidateMechanism(p); err != nil {
		return loss.Losses{}, c.errorf("%v", err)
	}
	return loss.New(m.ReconLoss(p), m.AdvLosses(p)), nil
}

// BinaryLosses returns the exact MAP 0-1 losses of the channel on the binary
// model m (Section III-B, Appendix B), for any output alphabet: the binary
// model as a finite model (mip.Binary.Finite). With two outputs and
// P = [[s0, 1−s0], [1−s1, s1]] they are mip.Binary.MAPLoss of (s0, s1).
func (c *Channel) BinaryLosses(m mip.Binary) (loss.Losses, error) {
	if err := m.Validate(); err != nil {
		return loss.Losses{}, fmt.Errorf("privatizer: binary model: %w", err)
	}
	return c.FiniteLosses(m.Finite())
}

// ParseChannelJSON reads a channel file {"channel": [[P(F=f|X=x) for f] for
// x]} and validates it; name is the file name for messages.
func ParseChannelJSON(r io.Reader, name string) (*Channel, error) {
	var v struct {
		Channel [][]float64 `json:"channel"`
	}
	if err := jsonconf.Decode(r, &v); err != nil {
		return nil, fmt.Errorf("%w: channel %s: %v", ErrInput, name, err)
	}
	if v.Channel == nil {
		return nil, fmt.Errorf("%w: channel %s: field \"channel\" is missing: want {\"channel\": [[P(F=f|X=x) for f] for x]}", ErrInput, name)
	}
	c := &Channel{Name: name, P: v.Channel}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// ParseChannelCSV reads a channel as CSV: one line per x, one column per f,
// no header; lines starting with '#' are comments. Every entry must parse as
// a number; name is the file name for messages.
func ParseChannelCSV(r io.Reader, name string) (*Channel, error) {
	data, err := io.ReadAll(io.LimitReader(r, jsonconf.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("channel %s: read: %w", name, err)
	}
	if len(data) > jsonconf.MaxBytes {
		return nil, fmt.Errorf("%w: channel %s: file larger than %d bytes", ErrInput, name, jsonconf.MaxBytes)
	}
	if msg := jsonconf.Encoding(data); msg != "" {
		return nil, fmt.Errorf("%w: channel %s: %s", ErrInput, name, msg)
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = -1 // ragged rows get Validate's message
	c := &Channel{Name: name}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: channel %s: malformed CSV: %v", ErrInput, name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(c.P) >= MaxAlphabet {
			return nil, c.errorf("more than %d rows", MaxAlphabet)
		}
		row := make([]float64, len(rec))
		for f, s := range rec {
			v, err := decimal.Float(strings.TrimSpace(s))
			if err != nil {
				if decimal.NonFinite(strings.TrimSpace(s)) {
					return nil, c.errorf("line %d, column %d: %s: NaN and infinities are not probabilities", line, f+1, safefile.Excerpt(s))
				}
				return nil, c.errorf("line %d, column %d: %s is not a number (no header line: rows are P(F=f | X=x) for f, one per x)", line, f+1, safefile.Excerpt(s))
			}
			row[f] = v
		}
		c.P = append(c.P, row)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// File is a privatizer file as ParseNamed decodes it: exactly one of Channel,
// Network and Kernel is set, as Format says.
type File struct {
	Format  Format
	Channel *Channel
	Network *network.Network
	Kernel  *Kernel
}

// MaxFileBytes bounds a privatizer file of any form.
const MaxFileBytes = network.MaxONNXBytes

// ParseNamed decodes the bytes of a privatizer file of any form at path,
// named name in messages and in the result (an escaped path, or an excerpt
// of a path read from another file): a path ending in .onnx is an ONNX
// network, .csv a CSV channel; otherwise a JSON object with the key
// "channel" is a channel, one with "kernel" a cell kernel and one with
// "layers" a network in the JSON layout (keys exactly so, none twice:
// jsonconf).
// Errors wrap ErrInput and name the file.
func ParseNamed(data []byte, path, name string) (File, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".onnx":
		m, err := network.ParseONNX(data, name)
		return File{Format: FormatONNX, Network: m}, err
	case ".csv":
		c, err := ParseChannelCSV(bytes.NewReader(data), name)
		return File{Format: FormatChannelCSV, Channel: c}, err
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] != '{' {
		// Text that is not an object: say what is wrong with it as JSON
		// first (a byte order mark, Python's NaN), then that it is not a
		// privatizer. (Binary data gets the list of formats below.)
		var v any
		if err := jsonconf.Unmarshal(data, &v); err != nil && utf8.Valid(data) {
			return File{}, fmt.Errorf("%w: %s: %v", ErrInput, name, err)
		}
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		var keys map[string]json.RawMessage
		if err := jsonconf.Unmarshal(data, &keys); err != nil {
			return File{}, fmt.Errorf("%w: %s: %v", ErrInput, name, err)
		}
		if _, ok := keys["channel"]; ok {
			c, err := ParseChannelJSON(bytes.NewReader(data), name)
			return File{Format: FormatChannelJSON, Channel: c}, err
		}
		if _, ok := keys["kernel"]; ok {
			k, err := ParseKernelJSON(bytes.NewReader(data), name)
			return File{Format: FormatKernelJSON, Kernel: k}, err
		}
		if _, ok := keys["layers"]; ok {
			m, err := network.ParseJSON(bytes.NewReader(data), name)
			return File{Format: FormatNetworkJSON, Network: m}, err
		}
	}
	return File{}, fmt.Errorf("%w: %s: neither a channel {\"channel\": [[…]]}, a kernel {\"kernel\": {…}} nor a network {\"inputs\": [\"x\", \"r\"], \"layers\": […]} (nor a .onnx or .csv file)", ErrInput, name)
}
