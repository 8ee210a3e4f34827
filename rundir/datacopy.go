package rundir

import (
	"context"
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrDataName marks a data file's name that cannot be a file of a results
// directory: one of the directory's own files or folders.
var ErrDataName = errors.New("rundir: not a name for a data file")

// DataCopy returns the path of the copy of a data file named name (a base
// name, data.Spec.FileName) beside results.json. A name the directory
// uses for its own files is an error wrapping ErrDataName.
func (d Dir) DataCopy(name string) (string, error) {
	switch name {
	case ResultsFile, ModelFile, "trials", "points":
		return "", fmt.Errorf("%w: %s is a file of the results directory itself", ErrDataName, safefile.Path(name))
	}
	return d.Path(name), nil
}

// WriteDataCopy writes b as the copy of the data file named name
// (DataCopy), atomically, or checks that an existing copy holds the same
// bytes and is the directory's own file (as ReadDataCopy): a results
// directory binds one data file.
func (d Dir) WriteDataCopy(name string, b []byte) error {
	path, err := d.DataCopy(name)
	if err != nil {
		return err
	}
	// A link (symbolic or hard), a FIFO, a larger file: not overwritten.
	old, err := safefile.ReadOwn(context.Background(), path, safefile.Path(path), int64(len(b)))
	return writeOnce(path, b, old, err, "holds another file than this run's data")
}

// ReadDataCopy reads the copy of the data file named name (DataCopy), of
// at most maxBytes bytes, once: a regular file of the directory itself,
// never the target of a symbolic link nor a hard link to a file elsewhere
// (one of several names of the same bytes, which whoever holds another
// name can change under the verifier: safefile.ReadOwn, an error wrapping
// safefile.ErrHardLink). A missing copy's error wraps fs.ErrNotExist.
func (d Dir) ReadDataCopy(ctx context.Context, name string, maxBytes int64) ([]byte, error) {
	path, err := d.DataCopy(name)
	if err != nil {
		return nil, err
	}
	return safefile.ReadOwn(ctx, path, safefile.Path(path), maxBytes)
}
