package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Certificates of mmds verify (docs/check.md, "Certificates of mmds
// verify"): the points are a results directory's, bound by the hashes
// training recorded in results.json. The checker reads results.json,
// recomputes each point's hash from its record (the seal, below), takes
// the privatizer from the record, and checks the rest as for mmds certify.

// results is what a certificate of mmds verify is checked against: the
// thresholds of the run's configuration and the point records by index.
type results struct {
	d       []float64
	records map[int]*object
}

// readRun reads the results file the certificate names and checks the
// hashes that bind it to the model and the configuration.
func readRun(certPath string, root *object, m *model) *results {
	name := root.str("results_file")
	res := asObject(name, parseJSON(readFile(certFile(certPath, "results_file", name), maxPrivatizerBytes)))
	cfg := res.obj("config")
	if h := cfg.str("model_sha256"); h != m.hash {
		fail("%s: config.model_sha256 is %s, but the model file's canonical encoding has %s", printable(name), quote(h), m.hash)
	}
	if h, want := res.obj("binding").str("config_sha256"), root.str("config_sha256"); h != want {
		fail("config_sha256 is %s, but %s records %s", quote(want), printable(name), quote(h))
	}
	r := &results{d: numbers(cfg.key("d"), cfg.get("d")), records: map[int]*object{}}
	for i, v := range res.list("points") {
		rec := asObject(fmt.Sprintf("%s: points[%d]", name, i), v)
		di := rec.num("d_index")
		rejectIf(di != math.Trunc(di) || di < 0 || di >= float64(len(r.d)) || r.records[int(di)] != nil, "%s: d_index %v: want a threshold index of the configuration, once", rec.path, di)
		r.records[int(di)] = rec
	}
	return r
}

// record checks the certificate's point i against the run: its D is the
// configuration's, its status follows the record (none: not trained; not
// finalized), and its point_sha256 is the record's seal and the hash the
// record states. It returns the privatizer of a finalized point.
func (r *results) record(path string, i int, p *object) (privatizer, bool) {
	if d := p.num("D"); i >= len(r.d) || d != r.d[i] {
		fail("%s.D = %v, but the configuration's threshold %d is not that", path, d, i)
	}
	rec := r.records[i]
	status := "not trained"
	if rec != nil {
		notCoveredIf(rec.has("kernel"), "%s: a cell kernel, a privatizer of the Gaussian model", rec.path)
		h := seal(rec)
		if s := rec.str("sha256"); s != h {
			fail("%s: sha256 is %s, but the record's seal hashes to %s", rec.path, quote(s), h)
		}
		if s := p.str("point_sha256"); s != h {
			fail("%s.point_sha256 is %s, but the record's seal hashes to %s", path, quote(s), h)
		}
		if d := rec.num("D"); d != r.d[i] {
			fail("%s: D = %v, but the configuration's threshold %d is %v", rec.path, d, i, r.d[i])
		}
		if status = "not finalized"; rec.boolean("finalized") {
			return privatizerOf(rec), true
		}
	}
	if s, pass, v := p.str("status"), p.boolean("pass"), p.str("verdict"); s != status || pass || v != status {
		fail("%s: status %s, pass %v, verdict %s, but the point is %s", path, quote(s), pass, quote(v), status)
	}
	p.done()
	return privatizer{}, false
}

// privatizerOf is a finalized record's privatizer: the channel of the
// labels method, or the first network (role privatizer) in float64, as
// training evaluated it.
func privatizerOf(rec *object) privatizer {
	if rec.has("channel") {
		return privatizer{channel: checkChannel(rec.path, matrix(rec.key("channel"), rec.get("channel")))}
	}
	nets := rec.list("networks")
	rejectIf(len(nets) == 0, "%s: a finalized point without networks", rec.path)
	o := asObject(rec.key("networks[0]"), nets[0])
	if role := o.str("role"); role != "privatizer" {
		reject("%s.role %s: want privatizer", o.path, quote(role))
	}
	n := &network{name: o.path, inputs: listOf(o.key("inputs"), o.get("inputs"), "names", text)}
	for l, v := range o.list("layers") {
		ly := asObject(fmt.Sprintf("%s.layers[%d]", o.path, l), v)
		w, b := matrix(ly.key("weights"), ly.get("weights")), numbers(ly.key("bias"), ly.get("bias"))
		if in, out := ly.num("in"), ly.num("out"); out != float64(len(w)) || (len(w) > 0 && in != float64(len(w[0]))) {
			reject("%s: in %v and out %v, but %d weight rows", ly.path, in, out, len(w))
		}
		n.layers = append(n.layers, layer{w: w, b: b, act: ly.str("activation")})
	}
	n.validate()
	return privatizer{net: n}
}

// floatsG is a list of numbers as results.json writes network weights and
// adversary losses: Go's %g with the shortest digits (exponent form when
// the decimal exponent is below −4 or at least 6), null for a missing
// entry.
type floatsG []*float64

func (f floatsG) MarshalJSON() ([]byte, error) {
	if f == nil {
		return []byte("null"), nil
	}
	parts := make([]string, len(f))
	for i, v := range f {
		if parts[i] = "null"; v != nil {
			parts[i] = strconv.FormatFloat(*v, 'g', -1, 64)
		}
	}
	return []byte("[" + strings.Join(parts, ",") + "]"), nil
}

type sealLayer struct {
	In         int       `json:"in"`
	Out        int       `json:"out"`
	Activation string    `json:"activation"`
	Weights    []floatsG `json:"weights"`
	Bias       floatsG   `json:"bias"`
}

type sealNetwork struct {
	Role   string      `json:"role"`
	Inputs []string    `json:"inputs"`
	Layers []sealLayer `json:"layers"`
}

// pointSeal is what a point's hash covers, in this order (docs/check.md).
type pointSeal struct {
	DIndex        int           `json:"d_index"`
	D             float64       `json:"D"`
	Finalized     bool          `json:"finalized"`
	Recon         *float64      `json:"recon_loss"`
	Adv           floatsG       `json:"adv_loss"`
	MinAdv        *float64      `json:"min_adv_loss"`
	ReconHard     *float64      `json:"recon_hard"`
	AdvHard       floatsG       `json:"adv_hard"`
	Trial         int           `json:"trial"`
	Epoch         int           `json:"epoch"`
	Networks      []sealNetwork `json:"networks"`
	NetworksEpoch int           `json:"networks_epoch"`
	Channel       [][]float64   `json:"channel,omitempty"`
}

// seal is the SHA-256 of a record's seal: its fields above, decoded as Go
// decodes them and encoded by encoding/json.
func seal(rec *object) string {
	for k := range rec.m {
		for _, f := range []string{"d_index", "D", "finalized", "recon_loss", "adv_loss", "min_adv_loss", "recon_hard", "adv_hard", "trial", "epoch", "networks", "networks_epoch", "channel", "kernel"} {
			rejectIf(k != f && strings.EqualFold(k, f), "%s: key %s: want %s (a key in another case is not the field)", rec.path, quote(k), f)
		}
	}
	var s pointSeal
	raw, err := json.Marshal(rec.m)
	if err == nil {
		err = json.Unmarshal(raw, &s)
	}
	rejectIf(err != nil, "%s: %v", rec.path, err)
	enc, err := json.Marshal(s)
	rejectIf(err != nil, "%s: %v", rec.path, err)
	return sha256Hex(enc)
}
