package privatizer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/network"
)

// Attack: a privatizer or channel file planted as a FIFO whose writer never
// closes it (or a device) hung Read and ReadChannel forever, and nothing
// could stop them. Both now refuse anything but a regular file on the open
// descriptor before reading, refuse files above their cap, and stop with
// their context.
func TestReadRefusesNonRegularAndStops(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "priv.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer that never closes
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	go w.Write([]byte(`{"channel": [[1, 0], [0, 1]]}`))
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join("testdata", "channel-binary.json")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	read := func(ctx context.Context, path string) error { _, err := Read(ctx, path); return err }
	readChannel := func(ctx context.Context, path string) error { _, err := ReadChannel(ctx, path); return err }
	for _, tc := range []struct {
		name string
		read func(context.Context, string) error
		ctx  context.Context
		path string
		want string
		is   error
	}{
		{"Read FIFO", read, context.Background(), fifo, "named pipe", safefile.ErrInput},
		{"ReadChannel FIFO", readChannel, context.Background(), fifo, "named pipe", safefile.ErrInput},
		{"Read /dev/zero", read, context.Background(), "/dev/zero", "character device", safefile.ErrInput},
		{"Read over the cap", read, context.Background(), big, "more than the", safefile.ErrInput},
		{"ReadChannel over the cap", readChannel, context.Background(), big, "more than the", safefile.ErrInput},
		{"Read cancelled", read, cancelled, good, "canceled", context.Canceled},
		{"ReadChannel cancelled", readChannel, cancelled, good, "canceled", context.Canceled},
	} {
		done := make(chan error, 1)
		go func() { done <- tc.read(tc.ctx, tc.path) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
				t.Errorf("%s: %v; want an error containing %q, wrapping %v", tc.name, err, tc.want, tc.is)
			}
		case <-time.After(time.Minute): // a hang lasts forever; a loaded machine needs room
			t.Fatalf("%s: still reading after a minute", tc.name)
		}
	}
}

// The command line reads a privatizer file at the door (safefile) and hands
// its bytes to ParseNamed; the tests read theirs the same way.

// Read reads a privatizer file once (safefile.Read: a regular file of at
// most MaxFileBytes, stopping when ctx is done) and parses it.
func Read(ctx context.Context, path string) (File, error) {
	data, err := safefile.Read(ctx, path, MaxFileBytes)
	if err != nil {
		return File{}, fmt.Errorf("privatizer %s: %w", path, err)
	}
	return ParseNamed(data, path, path)
}

// ReadChannel reads a channel file as Read does: CSV if its name ends in
// .csv, JSON otherwise.
func ReadChannel(ctx context.Context, path string) (*Channel, error) {
	data, err := safefile.Read(ctx, path, jsonconf.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("channel %s: %w", path, err)
	}
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		return ParseChannelCSV(bytes.NewReader(data), path)
	}
	return ParseChannelJSON(bytes.NewReader(data), path)
}

// ReadNetwork reads a network file as Read does.
func ReadNetwork(ctx context.Context, path string) (*network.Network, error) {
	f, err := Read(ctx, path)
	return f.Network, err
}

// NetworkChannel is networkChannel without the cells.
func NetworkChannel(ctx context.Context, m *network.Network, n int, tol float64) (*Channel, []network.Expectation, error) {
	c, rows, _, err := networkChannel(ctx, m, n, tol, false)
	return c, rows, err
}
