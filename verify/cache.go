package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/version"
	"github.com/mmds-project/mmds/model"
)

// Cache keeps the certificates Certify computed for a results directory, so
// that a command drawing from the same verification (mmds plot after mmds
// verify) does not compute them again. It is mmds's own: it lives in the
// user's cache folder, never in the results directory, whose files are the
// author's and from which no number is taken. An entry is bound to
// everything a certificate depends on: the directory's binding as Load
// recomputed it from the bytes (the SHA-256 of the model, of the
// configuration and of every point), the verifier's policy that reaches the
// certificates (the model options and the stated-error limit) and the mmds
// build; only the certificates are kept, and the optima, gaps and verdicts
// are derived again on every use. An entry is read only if it is a regular
// file of the user's own, not a link, with one name, under a size cap, and
// decodes strictly to the key asked for, with a certificate or a refusal
// for exactly the points the directory finalized; anything else is ignored
// and computed again. Entries are written to a temporary file renamed into
// place, so concurrent commands read a whole entry or none. The cache is as
// trusted as the user's own files: whoever can write the user's cache
// folder can change what mmds reports, as whoever can replace mmds could.
type Cache struct {
	// Dir holds the entries; "" disables the cache.
	Dir string
	// Build identifies the mmds build whose certificates the entries are.
	Build string
}

// CacheEnv names the environment variable that moves the cache: a folder,
// or "off" for none.
const CacheEnv = "MMDS_CACHE_DIR"

// UserCache returns the cache of the user running this mmds build:
// $MMDS_CACHE_DIR/verify, or os.UserCacheDir()/mmds/verify; none when
// MMDS_CACHE_DIR is "off" or there is no cache folder. A build from a
// modified or unversioned checkout is told apart by its executable's size
// and modification time, so that a rebuild never reads its predecessor's
// entries.
func UserCache() Cache {
	root := os.Getenv(CacheEnv)
	switch {
	case root == "off":
		return Cache{}
	case root == "":
		d, err := os.UserCacheDir()
		if err != nil {
			return Cache{}
		}
		root = filepath.Join(d, "mmds")
	}
	build := version.String()
	if strings.Contains(build, "dirty") || strings.HasPrefix(build, "(devel)") {
		if exe, err := os.Executable(); err == nil {
			if fi, err := os.Stat(exe); err == nil {
				build += fmt.Sprintf(" %s %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
	return Cache{Dir: filepath.Join(root, "verify"), Build: build}
}

// cacheFormat names the layout of an entry.
const cacheFormat = "mmds-verify-cache/1"

// maxCacheEntry caps the bytes of an entry read.
const maxCacheEntry = 256 << 20

// cacheKey is what an entry is bound to.
type cacheKey struct {
	Format       string        `json:"format"`
	Build        string        `json:"build"`
	ModelSHA256  string        `json:"model_sha256"`
	ConfigSHA256 string        `json:"config_sha256"`
	Points       []string      `json:"points"` // the point hashes by threshold index ("" where none)
	Model        model.Options `json:"model_options"`
	Quad         float64       `json:"quad_tol"`
}

// cachedPoint is one finalized threshold's outcome: its exact analysis, or
// the verdict of a point that cannot be certified.
type cachedPoint struct {
	DIndex   int             `json:"d_index"`
	Analysis *model.Analysis `json:"certificate,omitempty"`
	Refused  string          `json:"cannot_certify,omitempty"`
}

// cacheEntry is the file of one key.
type cacheEntry struct {
	Key    cacheKey      `json:"key"`
	Points []cachedPoint `json:"points"`
}

// key returns the key of run under o (resolved) and the entry's file.
func (c Cache) key(run *Run, o Options) (cacheKey, string, error) {
	k := cacheKey{Format: cacheFormat, Build: c.Build, ModelSHA256: run.ModelSHA256,
		ConfigSHA256: run.Results.Binding.ConfigSHA256, Points: make([]string, len(run.Results.Config.D)),
		Model: o.Model, Quad: o.Tol.Quad}
	for _, p := range run.Results.Points {
		if p.DIndex >= 0 && p.DIndex < len(k.Points) {
			k.Points[p.DIndex] = p.SHA256
		}
	}
	b, err := json.Marshal(k)
	if err != nil {
		return k, "", err
	}
	return k, filepath.Join(c.Dir, safefile.SHA256(b)+".json"), nil
}

// load returns the cached outcomes of run's finalized points under o, by
// threshold index, or nil where there is no usable entry.
func (c Cache) load(ctx context.Context, run *Run, o Options) []*cachedPoint {
	if c.Dir == "" {
		return nil
	}
	k, path, err := c.key(run, o)
	if err != nil {
		return nil
	}
	b, err := safefile.ReadMine(ctx, path, maxCacheEntry)
	if err != nil {
		return nil
	}
	var e cacheEntry
	if err := jsonconf.Unmarshal(b, &e); err != nil {
		return nil
	}
	kb, _ := json.Marshal(k)
	eb, err := json.Marshal(e.Key)
	if err != nil || string(kb) != string(eb) {
		return nil
	}
	out := make([]*cachedPoint, len(run.Results.Config.D))
	for i := range e.Points {
		p := &e.Points[i]
		if p.DIndex < 0 || p.DIndex >= len(out) || out[p.DIndex] != nil || (p.Analysis == nil) == (p.Refused == "") {
			return nil
		}
		if p.Refused != "" && (!strings.HasPrefix(p.Refused, VerdictCannotCertify+": ") || safefile.Printable(p.Refused) != p.Refused) {
			return nil
		}
		out[p.DIndex] = p
	}
	// Exactly the finalized points (the run's thresholds are distinct:
	// Run.check), each with losses for every adversary.
	finalized := 0
	for _, dp := range run.Results.Points {
		if dp.DIndex < 0 || dp.DIndex >= len(out) {
			return nil
		}
		cp := out[dp.DIndex]
		if (cp != nil) != dp.Finalized {
			return nil
		}
		if cp != nil && cp.Analysis != nil && (len(cp.Analysis.Adv) != run.Model.Adversaries() || len(cp.Analysis.Interval.Adv) != len(cp.Analysis.Adv)) {
			return nil
		}
		if dp.Finalized {
			finalized++
		}
	}
	if finalized != len(e.Points) { // a point cached where the run has none
		return nil
	}
	return out
}

// store writes the outcomes of run's finalized points (by threshold index;
// nil where none) as the entry of run under o.
func (c Cache) store(run *Run, o Options, pts []*cachedPoint) error {
	if c.Dir == "" {
		return nil
	}
	k, path, err := c.key(run, o)
	if err != nil {
		return err
	}
	e := cacheEntry{Key: k}
	for _, p := range pts {
		if p != nil {
			e.Points = append(e.Points, *p)
		}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.Dir, ".entry-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
