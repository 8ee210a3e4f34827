package rundir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
)

// The files of a results directory, relative to it.
const (
	ResultsFile = "results.json"
	ModelFile   = "model.json"
)

// TrialFile returns the path, relative to a results directory, of the record
// of trial t at threshold index d.
func TrialFile(d, t int) string {
	return filepath.Join("trials", fmt.Sprintf("d%02d_t%03d.json", d, t))
}

// PointFile returns the path, relative to a results directory, of the point
// record of threshold index d.
func PointFile(d int) string {
	return filepath.Join("points", fmt.Sprintf("d%02d.json", d))
}

// maxFileBytes bounds every file of the directory when reading.
const maxFileBytes = 256 << 20

// Dir is a results directory.
type Dir string

// ErrResume marks a results directory that this run cannot resume: written
// for another model, configuration, seed or data, or corrupt.
var ErrResume = errors.New("rundir: resume")

// Path returns the path of a file of the directory.
func (d Dir) Path(rel string) string { return filepath.Join(string(d), rel) }

// WriteModel writes model.json, or checks that an existing one holds the
// same bytes (up to surrounding space): a results directory holds one model.
func (d Dir) WriteModel(model []byte) error {
	if err := d.Prepare(); err != nil {
		return err
	}
	path := d.Path(ModelFile)
	old, err := safefile.Read(context.Background(), path, maxFileBytes)
	return writeOnce(path, append(bytes.TrimSpace(model), '\n'), append(bytes.TrimSpace(old), '\n'), err, "describes a different model than this run's")
}

// writeOnce writes b as the file path atomically where there is none
// (err, of reading it, wraps fs.ErrNotExist); an existing file, read as
// old, must hold b, else the error says it differs. A file that could not
// be read (a FIFO, a directory, a link, …) is an error, never overwritten.
func writeOnce(path string, b, old []byte, err error, differs string) error {
	switch {
	case err == nil:
		if !bytes.Equal(old, b) {
			return fmt.Errorf("%w: %s %s; use a fresh directory", ErrResume, path, differs)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %w", ErrResume, err)
	}
	return report.WriteFile(path, b)
}

// Prepare creates d if needed, marks it as a results directory, and removes
// the temporary files that killed writers left in it, in trials/ and in
// points/ (report.PrepareFolder, report.RemoveStaleTemps).
func (d Dir) Prepare() error {
	if err := report.PrepareFolder(string(d), report.Results); err != nil {
		return fmt.Errorf("rundir: results directory: %w", err)
	}
	for _, sub := range []string{"trials", "points"} {
		if err := d.checkSubfolder(sub); err != nil {
			return err
		}
		if err := report.RemoveStaleTemps(d.Path(sub), true); err != nil {
			return fmt.Errorf("rundir: results directory: %w", err)
		}
	}
	return nil
}

// checkSubfolder refuses a subfolder of d (trials, points) that exists but
// is not a plain folder: through a symbolic link the records would be
// written, and stale temporary files removed, in a folder of the link
// author's choosing. One that does not exist yet is created by mmds.
func (d Dir) checkSubfolder(sub string) error {
	path := d.Path(sub)
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("rundir: results directory: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link: mmds writes its records only into its own folder; remove the link", ErrResume, path)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is %s, not a folder; remove it", ErrResume, path, safefile.Describe(fi.Mode()))
	}
	return nil
}

// ReadModel returns the bytes of model.json, read once (Dir.Read).
func (d Dir) ReadModel(ctx context.Context) ([]byte, error) {
	return d.Read(ctx, ModelFile)
}

// Read reads the file rel of d once: a regular file of at most 256 MiB,
// d's own (safefile.ReadIn: a results.json, model.json or record that is a
// symbolic link out of d, or passes through one, is refused, so that a
// results directory cannot make its reader parse, hash and quote a file of
// its author's choosing).
func (d Dir) Read(ctx context.Context, rel string) ([]byte, error) {
	b, err := safefile.ReadIn(ctx, string(d), rel, safefile.Path(d.Path(rel)), maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w (is this a results directory of mmds train?)", err)
	}
	return b, err
}

// WriteJSON rewrites the file rel of d atomically with v as indented JSON
// (report.WriteJSON): the layout of results.json.
func (d Dir) WriteJSON(rel string, v any) error {
	return d.write(rel, func(w io.Writer) error { return report.WriteJSON(w, v) })
}

// WriteRecord writes the record file rel of d (TrialFile, PointFile)
// atomically with v as one line of JSON, so that a reader never sees half a
// record.
func (d Dir) WriteRecord(rel string, v any) error {
	return d.write(rel, func(w io.Writer) error { return json.NewEncoder(w).Encode(v) })
}

// write rewrites the file rel of d atomically with what fn writes.
func (d Dir) write(rel string, fn func(io.Writer) error) error {
	if err := report.WriteAtomic(d.Path(rel), fn); err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	return nil
}

// ReadRecord decodes the record file rel of d strictly (jsonconf) into v.
// It reports false, and no error, when there is no such file yet; a file
// that does not decode is an error wrapping ErrResume.
func (d Dir) ReadRecord(ctx context.Context, rel string, v any) (bool, error) {
	path := d.Path(rel)
	b, err := d.Read(ctx, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("rundir: %w", err)
	}
	if err := jsonconf.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%w: %s: %w", ErrResume, path, err)
	}
	return true, nil
}
