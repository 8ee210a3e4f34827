package privatizer

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/safefile"
)

// Format is the form a privatizer file has: a network in ONNX or in the
// JSON layout, or a channel in JSON or CSV. Parse picks it from the file's
// extension and, for JSON, its keys.
type Format int

// The privatizer file formats.
const (
	FormatONNX        Format = iota + 1 // a network k(x, r), ONNX (.onnx)
	FormatNetworkJSON                   // a network k(x, r), the JSON layout {"inputs", "layers"}
	FormatChannelJSON                   // a channel P(F | X), {"channel": [[…]]}
	FormatChannelCSV                    // a channel P(F | X), CSV rows (.csv)
)

var formatNames = [...]string{FormatONNX: "onnx", FormatNetworkJSON: "network-json",
	FormatChannelJSON: "channel-json", FormatChannelCSV: "channel-csv"}

// ErrFormat is wrapped by the error for text that is not a format.
var ErrFormat = errors.New("privatizer: unknown format")

// String is the format's name ("onnx", "network-json", …).
func (f Format) String() string {
	if f < FormatONNX || f > FormatChannelCSV {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// IsNetwork reports whether the format holds a network k(x, r) (else a
// channel).
func (f Format) IsNetwork() bool { return f == FormatONNX || f == FormatNetworkJSON }

// MarshalText implements encoding.TextMarshaler.
func (f Format) MarshalText() ([]byte, error) {
	if f < FormatONNX || f > FormatChannelCSV {
		return nil, fmt.Errorf("%w: %d", ErrFormat, int(f))
	}
	return []byte(f.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (f *Format) UnmarshalText(b []byte) error {
	for v := FormatONNX; v <= FormatChannelCSV; v++ {
		if formatNames[v] == string(b) {
			*f = v
			return nil
		}
	}
	return fmt.Errorf("%w: %s: want onnx, network-json, channel-json or channel-csv", ErrFormat, safefile.Excerpt(string(b)))
}
