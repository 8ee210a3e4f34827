package bench

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// CBCResult is what RunCBC reads from CBC's output.
type CBCResult struct {
	Status    string // "Optimal", "time limit", "infeasible", or CBC's own words
	Objective float64
	Nodes     int64
	Time      time.Duration // CBC's wall-clock seconds
}

// ParseCBC reads the summary CBC prints at the end of a solve:
//
//	Result - Optimal solution found
//	Objective value:                0.20000000
//	Enumerated nodes:               56
//	Time (Wallclock seconds):       0.62
func ParseCBC(out string) (CBCResult, error) {
	r := CBCResult{Objective: math.NaN(), Nodes: -1}
	sc := bufio.NewScanner(strings.NewReader(out))
	var sawTime bool
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		key, val, ok := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		switch {
		case strings.HasPrefix(line, "Optimal objective ") && r.Status == "":
			// An LP: "Optimal objective 0.22 - 2 iterations time 0.002".
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return r, fmt.Errorf("cbc output: LP objective %q: %w", f[2], err)
			}
			r.Status, r.Objective, r.Nodes = "Optimal", v, 0
		case strings.HasPrefix(line, "Total time") && !sawTime:
			// The LP summary's only time: "... (Wallclock seconds):  0.00".
			if _, w, ok := strings.Cut(line, "(Wallclock seconds):"); ok {
				if v, err := strconv.ParseFloat(strings.TrimSpace(w), 64); err == nil {
					r.Time = time.Duration(v * float64(time.Second))
				}
			}
		case strings.HasPrefix(line, "Result - "):
			r.Status = cbcStatus(strings.TrimPrefix(line, "Result - "))
		case ok && key == "Objective value":
			v, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return r, fmt.Errorf("cbc output: objective %q: %w", val, err)
			}
			r.Objective = v
		case ok && key == "Enumerated nodes":
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return r, fmt.Errorf("cbc output: nodes %q: %w", val, err)
			}
			r.Nodes = v
		case ok && key == "Time (Wallclock seconds)" && !sawTime:
			v, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return r, fmt.Errorf("cbc output: time %q: %w", val, err)
			}
			r.Time, sawTime = time.Duration(v*float64(time.Second)), true
		}
	}
	if r.Status == "" {
		return r, fmt.Errorf("cbc output: no \"Result - \" or \"Optimal objective\" line")
	}
	return r, nil
}

func cbcStatus(s string) string {
	switch {
	case strings.HasPrefix(s, "Optimal solution found"):
		return "Optimal"
	case strings.Contains(s, "time"):
		return "time limit"
	case strings.Contains(s, "infeasible"):
		return "infeasible"
	}
	return s
}
