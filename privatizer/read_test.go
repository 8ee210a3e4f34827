package privatizer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/safefile"
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
