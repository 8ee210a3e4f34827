package privatizer

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
)

// Format is the form a privatizer file has: a network in ONNX or in the
// JSON layout, a channel in JSON or CSV, or a cell kernel in JSON. Parse
// picks it from the file's extension and, for JSON, its keys.
type Format int

// The privatizer file formats.
const (
	FormatONNX        Format = iota + 1 // a network k(x, r), ONNX (.onnx)
	FormatNetworkJSON                   // a network k(x, r), the JSON layout {"inputs", "layers"}
	FormatChannelJSON                   // a channel P(F | X), {"channel": [[…]]}
	FormatChannelCSV                    // a channel P(F | X), CSV rows (.csv)
	FormatKernelJSON                    // a cell kernel on the Gaussian model, {"kernel": {…}}
)

// ErrFormat is wrapped by the error for text that is not a format.
var ErrFormat = errors.New("privatizer: unknown format")

var formatText = enum.Text[Format]{Type: "Format", Names: []string{FormatONNX: "onnx", FormatNetworkJSON: "network-json",
	FormatChannelJSON: "channel-json", FormatChannelCSV: "channel-csv", FormatKernelJSON: "kernel-json"},
	BadValue: enum.IntError[Format](ErrFormat),
	BadText: func(b []byte, want string) error {
		return fmt.Errorf("%w: %s: want %s", ErrFormat, safefile.Excerpt(string(b)), want)
	}}

// String is the format's name ("onnx", "network-json", …).
func (f Format) String() string { return formatText.String(f) }

// IsNetwork reports whether the format holds a network k(x, r) (else a
// channel or a kernel).
func (f Format) IsNetwork() bool { return f == FormatONNX || f == FormatNetworkJSON }

// Object names what a file of the format holds, for messages: "network
// k(x, r)", "channel P(F | X)" or "cell kernel".
func (f Format) Object() string {
	switch {
	case f.IsNetwork():
		return "network k(x, r)"
	case f == FormatKernelJSON:
		return "cell kernel"
	}
	return "channel P(F | X)"
}

// MarshalText implements encoding.TextMarshaler.
func (f Format) MarshalText() ([]byte, error) { return formatText.Marshal(f) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (f *Format) UnmarshalText(b []byte) error { return formatText.Unmarshal(f, b) }
