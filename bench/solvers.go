package bench

import (
	"context"
	"os"
	"runtime"
	"strings"
	"time"
)

// SolverInfo is what a run records about a solver.
type SolverInfo struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Path      string `json:"path,omitempty"`   // the binary, for external solvers
	Options   string `json:"options"`          // every option mmds sets, as given
	Threads   int    `json:"threads"`          // threads asked for
	Seed      *int   `json:"seed"`             // the first solve's random seed; null when the solver has none
	Available bool   `json:"available"`        // the solver ran its probe
	Reason    string `json:"reason,omitempty"` // why it is unavailable
	ReadsFile bool   `json:"reads_file"`       // solves the MPS file rather than the in-memory model
	// SeedOption is how a solve's seed reaches the solver: the solver's
	// option, or PermutationSeed for a solver without one.
	SeedOption string `json:"seed_option"`
}

// PermutationSeed is the SeedOption of a solver without a random seed:
// seed s > 0 solves a file whose rows and columns are permuted by s
// (WriteMPSPermuted); seed 0 solves the file as written.
const PermutationSeed = "row/column permutation of the MPS file"

// Task is one solve: an instance, the file a file-reading solver reads,
// and the solve's time limit (0: none) and seed.
type Task struct {
	Instance Instance
	File     string
	// Columns maps the column positions of File to the model's columns
	// (nil: the identity), for a permuted file.
	Columns []int
	Limit   time.Duration
	Seed    int
}

// Solver solves one task.
type Solver interface {
	Info() SolverInfo
	Solve(ctx context.Context, t Task) Outcome
}

// SolverConfig is what every solver is given.
type SolverConfig struct {
	Threads int // 0: the solver's default
	Seed    int // the first solve's seed; solve k of an instance gets Seed + k
}

// Machine describes where a run happened.
type Machine struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	GoVersion string `json:"go_version"`
}

// ThisMachine reads the CPU model from /proc/cpuinfo where there is one.
func ThisMachine() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU(), GoVersion: runtime.Version(), CPU: "unknown"}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}
