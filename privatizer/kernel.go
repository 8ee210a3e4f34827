package privatizer

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/jsonconf"
)

// Kernel is a privatizer on the Gaussian model given as a cell kernel, the
// labels method's privatizer on a continuous X: cut points b_0 < … < b_{n−1}
// split the line into n+1 cells c_j, and F = l with probability
// Prob[j][l] when X ∈ c_j, time-shared with F = X with probability Reveal
// = λ (the gauss.Kernel with its file's name and λ; model.CertifyKernel
// certifies it). The kernel file is
//
//	{"kernel": {"edges": [b_0, …], "prob": [[P(F=l | X ∈ c_j) for l] for j], "reveal": λ}}
//
// the object results.json holds at points[i].kernel ("reveal" may be left
// out for λ = 0). "prob" may also be compact, {"labels": m, "rows": [[l,
// P(F=l | X ∈ c_j), …] for j]}, per row its nonzero entries
// (jsonconf.Matrix), which WriteJSON writes when it is shorter.
type Kernel struct {
	// Name is the file the kernel was read from (for messages).
	Name string `json:"-"`
	gauss.Kernel
	Reveal float64 `json:"reveal,omitempty"`
}

// Validate reports the first problem of k: gauss.Kernel's checks (rows =
// edges + 1, increasing edges, rows of probabilities summing to 1 with
// the same labels), finite edges, and λ in [0, 1). Messages name the file;
// they wrap ErrInput.
func (k *Kernel) Validate() error {
	if k.Prob == nil {
		return k.errorf("field \"prob\" is missing: want one row P(F=l | X ∈ c_j) per cell, len(edges)+1 of them")
	}
	for j, b := range k.Edges {
		if math.IsInf(b, 0) || math.IsNaN(b) {
			return k.errorf("edges[%d] = %v: want a finite cut point", j, b)
		}
	}
	if err := k.Kernel.Validate(); err != nil {
		return k.errorf("%v", err)
	}
	if !(k.Reveal >= 0 && k.Reveal < 1) {
		return k.errorf("\"reveal\" = %g: must be in [0, 1) (the probability of releasing X itself)", k.Reveal)
	}
	return nil
}

func (k *Kernel) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: kernel %s: %s", ErrInput, k.Name, fmt.Sprintf(format, args...))
}

// kernelFile is the kernel file's layout.
type kernelFile struct {
	Kernel *Kernel `json:"kernel"`
}

// ParseKernelJSON reads a kernel file {"kernel": {"edges", "prob",
// "reveal"}} strictly (jsonconf: no unknown, repeated or case-folded key)
// and validates it; name is the file name for messages.
func ParseKernelJSON(r io.Reader, name string) (*Kernel, error) {
	var v kernelFile
	if err := jsonconf.Decode(r, &v); err != nil {
		return nil, fmt.Errorf("%w: kernel %s: %v", ErrInput, name, err)
	}
	if v.Kernel == nil {
		return nil, fmt.Errorf("%w: kernel %s: field \"kernel\" is missing or null: want {\"kernel\": {\"edges\": […], \"prob\": [[…]], \"reveal\": λ}}", ErrInput, name)
	}
	k := v.Kernel
	k.Name = name
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return k, nil
}

// WriteJSON writes k as a kernel file, which ParseKernelJSON reads back
// as k, every number bit for bit.
func (k *Kernel) WriteJSON(w io.Writer) error {
	return writeJSON(w, kernelFile{Kernel: k})
}

// WriteJSON writes c as a channel file {"channel": [[…]]}, which
// ParseChannelJSON reads back as c, every number bit for bit.
func (c *Channel) WriteJSON(w io.Writer) error {
	return writeJSON(w, struct {
		Channel [][]float64 `json:"channel"`
	}{c.P})
}

// writeJSON writes v on one line, with a final newline. encoding/json writes
// the shortest decimal that parses back to each float64, so a file written
// here holds exactly the numbers it was written from.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Name is the name the file's privatizer carries in messages ("" for an
// empty File).
func (f File) Name() string {
	switch {
	case f.Network != nil:
		return f.Network.Name
	case f.Channel != nil:
		return f.Channel.Name
	case f.Kernel != nil:
		return f.Kernel.Name
	}
	return ""
}

// Renamed is f under another file's name, sharing its tables (for a file
// whose bytes are another's: a privatizer is never written to once read).
func (f File) Renamed(name string) File {
	switch {
	case f.Network != nil:
		n := *f.Network
		n.Name, f.Network = name, &n
	case f.Channel != nil:
		c := *f.Channel
		c.Name, f.Channel = name, &c
	case f.Kernel != nil:
		k := *f.Kernel
		k.Name, f.Kernel = name, &k
	}
	return f
}

// Numbers is how many float64s f's privatizer holds in memory: a network's
// weights and biases, a channel's entries, a kernel's edges and table.
func (f File) Numbers() int64 {
	var n int64
	rows := func(m [][]float64) {
		for _, r := range m {
			n += int64(len(r))
		}
	}
	switch {
	case f.Network != nil:
		for _, l := range f.Network.Layers {
			rows(l.W)
			n += int64(len(l.B))
		}
	case f.Channel != nil:
		rows(f.Channel.P)
	case f.Kernel != nil:
		rows(f.Kernel.Prob)
		n += int64(len(f.Kernel.Edges))
	}
	return n
}

// WriteJSON writes f's privatizer in its JSON form: a network in the JSON
// layout, a channel file or a kernel file.
func (f File) WriteJSON(w io.Writer) error {
	switch {
	case f.Network != nil:
		return f.Network.WriteJSON(w)
	case f.Channel != nil:
		return f.Channel.WriteJSON(w)
	case f.Kernel != nil:
		return f.Kernel.WriteJSON(w)
	}
	panic("privatizer: WriteJSON of an empty File")
}
