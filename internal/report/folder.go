package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmds-project/mmds/internal/safefile"
)

// Kind is what a folder that mmds creates as a whole is; its marker file
// (MarkerFile) holds the kind's name and a newline.
type Kind string

// The kinds of folder mmds creates.
const (
	// Results is a results directory of mmds train (package rundir).
	Results Kind = "results"
	// BenchLibrary is an instance library of mmds bench library.
	BenchLibrary Kind = "bench-library"
	// SlurmJobs is a folder of Slurm scripts of mmds train --slurm.
	SlurmJobs Kind = "slurm-jobs"
	// K8sJobs is a folder of Kubernetes manifests of mmds train --k8s.
	K8sJobs Kind = "k8s-jobs"
)

// Want says, for a message, what a folder of kind k is: "a results folder
// of mmds train (results.json, model.json)".
func (k Kind) Want() string {
	switch k {
	case Results:
		return "a results folder of mmds train (with results.json and model.json)"
	case BenchLibrary:
		return "an instance library of mmds bench library (with manifest.json)"
	case SlurmJobs:
		return "a folder of Slurm scripts of mmds train --slurm"
	}
	return "a " + string(k) + " folder of mmds"
}

// MarkerFile is the name of the marker file of a folder of a Kind.
const MarkerFile = ".mmds-kind"

// ErrKind reports a folder that is not of the kind a command reads or
// writes: a folder of another kind, or a non-empty folder without a marker
// where a command would create a folder of its kind.
var ErrKind = errors.New("report: wrong kind of folder")

// kinds lists the files each kind reserves for itself (a trailing "*" is a
// prefix, a leading "*" a suffix). No output of any command may be written
// at one of these names inside a folder of that kind, and a folder without a
// marker whose content matches legacy is taken to be one written by an
// older mmds.
var kinds = []struct {
	kind     Kind
	reserved []string
	legacy   func(dir string) bool
}{
	{Results, []string{"results.json", "model.json", "trials", "points", ".lock", ".lock-*"}, func(dir string) bool {
		return isRegular(filepath.Join(dir, "model.json")) &&
			(isRegular(filepath.Join(dir, "results.json")) || isDir(filepath.Join(dir, "trials")))
	}},
	{BenchLibrary, []string{"manifest.json", "manifest.csv", "mmds.solu", "benchmark.test", "metadata.csv", "*.mps", "*.mps.gz"}, func(dir string) bool {
		return isRegular(filepath.Join(dir, "manifest.json")) && isRegular(filepath.Join(dir, "manifest.csv"))
	}},
	{SlurmJobs, []string{"train.sbatch", "merge.sbatch", "submit.sh", "logs"}, func(dir string) bool {
		return isRegular(filepath.Join(dir, "train.sbatch")) && isRegular(filepath.Join(dir, "submit.sh"))
	}},
	// No legacy form: older mmds wrote manifests into any folder (even
	// one holding the user's own submit.sh), so an unmarked folder is
	// never taken for one.
	{K8sJobs, []string{"train-job.yaml", "merge-job.yaml", "config-map.yaml", "submit.sh"}, func(string) bool { return false }},
}

func known(k Kind) bool {
	for _, c := range kinds {
		if c.kind == k {
			return true
		}
	}
	return false
}

// Reserved reports whether name (one path element directly inside a folder
// of kind k) is one of the files the folder reserves for itself. The marker
// is reserved in every folder, marked or not: writing it would forge a kind.
func Reserved(k Kind, name string) bool {
	if name == MarkerFile {
		return true
	}
	for _, c := range kinds {
		if c.kind != k {
			continue
		}
		for _, r := range c.reserved {
			switch {
			case strings.HasSuffix(r, "*") && strings.HasPrefix(name, strings.TrimSuffix(r, "*")),
				strings.HasPrefix(r, "*") && strings.HasSuffix(name, strings.TrimPrefix(r, "*")),
				r == name:
				return true
			}
		}
	}
	return false
}

// ReadKind returns the kind dir's marker names, "" when dir has no marker.
// A marker that is not a regular file, or names no kind mmds knows, is an
// error wrapping ErrKind.
func ReadKind(dir string) (Kind, error) {
	path := filepath.Join(dir, MarkerFile)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", safefile.UnwrapPath(err)
	}
	if !fi.Mode().IsRegular() {
		return "", errorf(ErrKind, "%s is %s, not a marker file", path, safefile.Describe(fi.Mode()))
	}
	// Read through safefile: the marker is opened without blocking, beneath
	// dir (a link swapped in after the Lstat is not followed out of it), and
	// checked to be a regular file on the open descriptor itself.
	b, err := safefile.ReadIn(context.Background(), dir, MarkerFile, path, 64)
	if err != nil {
		return "", errorf(ErrKind, "%s: %v", path, err)
	}
	k := Kind(strings.TrimSpace(string(b)))
	if !known(k) {
		return "", errorf(ErrKind, "%s names no kind of folder mmds knows (%s)", path, Quote(string(k)))
	}
	return k, nil
}

// KindOf returns dir's kind: its marker's, or, for a folder without a
// marker, the kind whose content it unmistakably holds (written by an older
// mmds), or "".
func KindOf(dir string) (Kind, error) {
	k, err := ReadKind(dir)
	if err != nil || k != "" {
		return k, err
	}
	for _, c := range kinds {
		if c.legacy(dir) {
			return c.kind, nil
		}
	}
	return "", nil
}

// CheckFolder checks, before any work, that dir can be a folder of kind k:
// it does not exist, or it is a folder that is marked as k, or is empty, or
// holds (without a marker) what an older mmds wrote into a folder of kind k.
// Anything else is an error wrapping ErrKind (or ErrTarget for a path that
// is not a folder).
func CheckFolder(dir string, k Kind) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if lfi, lerr := os.Lstat(dir); lerr == nil && lfi.Mode()&fs.ModeSymlink != 0 {
			return errorf(ErrTarget, "is a symbolic link to nothing")
		}
		return nil
	}
	if err != nil {
		return safefile.UnwrapPath(err)
	}
	if !fi.IsDir() {
		return errorf(ErrTarget, "is %s, not a folder", safefile.Describe(fi.Mode()))
	}
	got, err := ReadKind(dir)
	if err != nil {
		return err
	}
	switch {
	case got == k:
		return nil
	case got != "":
		return errorf(ErrKind, "is a %s folder (its %s says so), not a %s folder", got, MarkerFile, k)
	}
	empty, err := emptyDir(dir)
	if err != nil {
		return safefile.UnwrapPath(err)
	}
	if empty {
		return nil
	}
	// A concurrent writer (another shard) marks the folder before it writes
	// anything else into it: what made it non-empty may be that marker, or
	// come after it. Read it again.
	if got, err := ReadKind(dir); err != nil || got == k {
		return err
	} else if got != "" {
		return errorf(ErrKind, "is a %s folder (its %s says so), not a %s folder", got, MarkerFile, k)
	}
	if other, _ := KindOf(dir); other != "" && other != k {
		return errorf(ErrKind, "holds a %s folder of an older mmds, not a %s folder", other, k)
	}
	for _, c := range kinds {
		if c.kind == k && c.legacy(dir) {
			return nil
		}
	}
	return errorf(ErrKind, "is not empty and has no %s marker, so it is not a %s folder of mmds; give a new or empty folder", MarkerFile, k)
}

// PrepareFolder makes dir a folder of kind k: CheckFolder, then creates it
// (and its parents) if needed, writes its marker if it has none, and removes
// its stale temporary files (RemoveStaleTemps).
func PrepareFolder(dir string, k Kind) error {
	if err := CheckFolder(dir, k); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if got, err := ReadKind(dir); err != nil || got != k {
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if err := WriteFile(filepath.Join(dir, MarkerFile), []byte(string(k)+"\n")); err != nil {
			return err
		}
	}
	return RemoveStaleTemps(dir, true)
}

// emptyDir reports whether dir holds nothing but mmds's temporary files
// (those of a concurrent writer creating the same folder's marker).
func emptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	for {
		names, err := f.Readdirnames(64)
		for _, n := range names {
			if !tempName.MatchString(n) {
				return false, nil
			}
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

func isRegular(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// Quote quotes and escapes s for an error message, shortened to at most
// 80 bytes, so a message never echoes more than a short excerpt of what a
// user gave.
func Quote(s string) string {
	const max = 80
	if len(s) > max {
		s = s[:max/2-2] + "…" + s[len(s)-max/2+2:]
	}
	return fmt.Sprintf("%q", s)
}
