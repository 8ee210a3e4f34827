package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrInput marks an error of the user's input (options out of range, a
// library that cannot be solved as it is: exit 2 on the command line); its
// message is the input's own.
var ErrInput = errors.New("bench: invalid input")

// inputError is an error errors.Is reports as ErrInput, with its own text.
type inputError struct{ error }

func (e inputError) Is(target error) bool { return target == ErrInput }
func (e inputError) Unwrap() error        { return e.error }

func inputf(format string, args ...any) error { return inputError{fmt.Errorf(format, args...)} }

// Selection is the instances of a library chosen to be solved, each
// regenerated from the library's version and seed and certified again:
// the optimum and bound a solver is judged against are mmds's own.
type Selection struct {
	Dir       string
	Tiers     []string
	Set       Set
	Manifest  Manifest // its Instances are the ones selected
	Instances []Instance
	Files     map[string]string // instance → its file in the library
	// Missing names the instances of the selection that manifest.json
	// leaves out.
	Missing []string
}

// Select reads the library in dir and selects the instances of tiers (nil:
// every tier) in set.
func Select(ctx context.Context, dir string, tiers []string, set Set) (*Selection, error) {
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, inputf("library %q: %v", dir, err)
	}
	if man.Instances, err = SelectTiers(man.Instances, tiers); err != nil {
		return nil, inputf("--tier %v", err)
	}
	if man.Instances, err = SelectSet(man.Instances, set); err != nil {
		return nil, err
	}
	if len(man.Instances) == 0 {
		return nil, inputf("--set %s: no instance of the %s set in tiers %s", set, set, strings.Join(tiers, ", "))
	}
	s := &Selection{Dir: dir, Tiers: tiers, Set: set, Manifest: man, Files: map[string]string{}}
	bad := func(err error) error {
		if ctx.Err() != nil {
			return err
		}
		return inputf("library %q: %v", dir, err)
	}
	regen := NewRegenerator(man)
	for _, e := range man.Instances {
		in, err := LoadInstance(dir, e)
		if err == nil {
			in, err = regen.Recompute(ctx, in, e)
		}
		if err != nil {
			return nil, bad(err)
		}
		s.Instances = append(s.Instances, in)
		s.Files[in.Name] = dir + string(os.PathSeparator) + e.File
	}
	// A manifest.json that leaves instances out of the selection gets a
	// report that says so, naming them.
	if s.Missing, err = regen.Missing(ctx, man.Instances, tiers, set); err != nil {
		return nil, bad(err)
	}
	return s, nil
}

// Describe is the title of s's report, what the manifest leaves out of it
// ("" for nothing) and the source its JSON document records.
func (s *Selection) Describe() (title, part string, source map[string]any) {
	man := s.Manifest
	lib := map[string]any{"dir": s.Dir, "version": man.Version, "seed": man.Seed, "set": s.Set, "instances": len(man.Instances)}
	if len(s.Tiers) > 0 {
		lib["tiers"] = s.Tiers
	}
	if len(s.Missing) > 0 {
		lib["left_out"] = s.Missing
	}
	source = map[string]any{"library": lib}
	title, part = sourceTitle(source)
	return title, part, source
}
