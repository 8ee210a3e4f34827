package rundir

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrBinding reports a results directory whose files do not match the
// hashes recorded at training: edited, swapped or corrupted after the fact.
var ErrBinding = errors.New("rundir: results directory does not match its binding")

// Binding is the part of results.json that ties it to what it describes.
type Binding struct {
	// ConfigSHA256 is the SHA-256 of the canonical JSON of the run's
	// configuration, which includes the thresholds, the protocol and the
	// model's hash.
	ConfigSHA256 string `json:"config_sha256"`
}

// Bind records the hash of config.
func (b *Binding) Bind(config any) error {
	h, err := HashJSON(config)
	if err != nil {
		return err
	}
	b.ConfigSHA256 = h
	return nil
}

// Check reports, as an error wrapping ErrBinding, a binding that is missing,
// a model file whose hash (modelSHA256) is not the one the configuration
// recorded (recordedModel), or a configuration whose hash is not the one
// Bind recorded.
func (b Binding) Check(config any, recordedModel, modelSHA256 string) error {
	if b.ConfigSHA256 == "" || recordedModel == "" {
		return fmt.Errorf("%w: results.json has no binding (written before mmds bound results to their model and networks); train again into a fresh directory", ErrBinding)
	}
	if recordedModel != modelSHA256 {
		return fmt.Errorf("%w: %s is not the model this run was trained on (its sha256 is %s, the run was trained on %s)",
			ErrBinding, ModelFile, ShortHash(modelSHA256), ShortHash(recordedModel))
	}
	h, err := HashJSON(config)
	if err != nil {
		return err
	}
	if h != b.ConfigSHA256 {
		return fmt.Errorf("%w: results.json: \"config\" was changed after training (thresholds, protocol, sizes or seed; sha256 %s, recorded %s)",
			ErrBinding, ShortHash(h), ShortHash(b.ConfigSHA256))
	}
	return nil
}

// HashJSON returns the hex SHA-256 of v's encoding/json encoding: the hash
// the binding records of the configuration and of each point.
func HashJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("rundir: binding: %w", err)
	}
	return safefile.SHA256(b), nil
}

// ShortHash is the first 12 hex digits of a hash, for messages; "(none)"
// for no hash.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "(none)"
	}
	return h
}
