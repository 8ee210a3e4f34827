package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mmds-project/mmds/privatizer"
)

// The hash an Input carries is that of the bytes its File was parsed from:
// ReadInputs reads once, and parseInput hashes what it parses.
func TestInputHashesParsedBytes(t *testing.T) {
	dir := t.TempDir()
	a := []byte(`{"channel": [[0.9, 0.1], [0.1, 0.9]]}`)
	b := []byte(`{"channel": [[1, 0], [0, 1]]}`)
	for _, c := range []struct {
		data []byte
		p00  float64
	}{{a, 0.9}, {b, 1}} {
		in, err := parseInput(0.1, "c.json", "c.json", c.data)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(c.data)
		if in.SHA256 != hex.EncodeToString(sum[:]) || in.File.Channel.P[0][0] != c.p00 {
			t.Errorf("%s: hash %s, channel %v", c.data, in.SHA256, in.File.Channel.P)
		}
	}
	p := filepath.Join(dir, "c.json")
	if err := os.WriteFile(p, a, 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := ReadInputs(context.Background(), []Entry{{D: 0.1, Privatizer: p, Name: p}}, 0)
	if want, _ := parseInput(0.1, p, p, a); err != nil || ins[0].SHA256 != want.SHA256 || ins[0].File.Channel.P[0][0] != 0.9 {
		t.Errorf("ReadInputs: %+v, %v", ins, err)
	}
	// A FIFO could serve a leak to the read that is parsed and a good
	// channel to one that is hashed: it is refused before either.
	fifo := filepath.Join(dir, "f.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	go w.Write(append(b, a...))
	if _, err := ReadInputs(context.Background(), []Entry{{D: 0.1, Privatizer: fifo, Name: fifo}}, 0); !errors.Is(err, privatizer.ErrInput) || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("FIFO: %v; want an ErrInput naming a named pipe", err)
	}
}
