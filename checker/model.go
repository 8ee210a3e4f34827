package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// A data model of a binary or finite kind (the paper's Section III-B and
// docs/finite.md), in exact rationals: X ∈ {0..n−1} with prior π; each
// observer (the reconstructor first, then the adversaries) sees V through
// its channel W(v | x) and pays L(x, a) for estimate a. Its Bayes risk
// under a privatizer P(f | x) is
//
//	R(P) = Σ_f Σ_v min_a Σ_x π(x) P(f|x) W(v|x) L(x, a) = Σ_f Σ_v min_a ⟨k_va, P(f|·)⟩,
//
// with the loss vectors k_va[x] = π(x)·W(v|x)·L(x, a). The binary model
// {p, q_y, q_z} is the finite model with π = (1 − p, p), binary symmetric
// channels and 0-1 losses.
type model struct {
	kind  string // "binary" or "finite"
	n     int
	prior []*big.Rat
	obs   []observer // obs[0] the reconstructor, obs[1..K] the adversaries
	scale *big.Rat   // the loss scale (lossScale)
	hash  string     // SHA-256 of the canonical encoding
	p     *big.Rat   // binary: P(X = 1)
}

type observer struct {
	w, l    [][]*big.Rat   // w[x][v], l[x][a]
	k       [][][]*big.Rat // k[v][a][x]
	zeroOne bool           // l is the default 0-1 loss
}

func (m *model) recon() observer  { return m.obs[0] }
func (m *model) adv() []observer  { return m.obs[1:] }
func (o observer) sides() int     { return len(o.k) }
func (o observer) estimates() int { return len(o.k[0]) }
func ratMatrix(v [][]float64) [][]*big.Rat {
	out := make([][]*big.Rat, len(v))
	for i, row := range v {
		for _, x := range row {
			out[i] = append(out[i], exact(x))
		}
	}
	return out
}

// readModel parses a model file of the given kind, as strictly as mmds
// does, and hashes its canonical encoding (encoding/json of the --config
// fields in mmds's order: the numbers as the shortest decimals of their
// float64 values).
func readModel(kind string, root *object) *model {
	var canon any
	var m *model
	switch kind {
	case "binary":
		p, qy := root.num("p"), root.num("q_y")
		qz := numbers(root.key("q_z"), root.get("q_z"))
		root.done()
		rejectIf(len(qz) == 0, "%s is empty: want one crossover probability per adversary", root.key("q_z"))
		for _, v := range append([]float64{p, qy}, qz...) {
			rejectIf(!(v >= 0 && v <= 1), "%s: %v is not a probability", where(root.path), v)
		}
		canon = map[string]any{"p": p, "q_y": qy, "q_z": qz} // encoding/json sorts the keys: this order
		m = binaryModel(p, qy, qz)
	case "finite":
		var cfg finiteConfig
		m, cfg = finiteModel(root)
		canon = cfg
	default:
		reject("a %s model: this checker covers binary and finite models (docs/check.md, \"Not covered\")", quote(kind))
	}
	enc, _ := json.Marshal(canon) // finite numbers and strings: no error
	m.hash = sha256Hex(enc)
	return m
}

func binaryModel(p, qy float64, qz []float64) *model {
	one := ratInt(1)
	pr := exact(p)
	m := &model{kind: "binary", n: 2, prior: []*big.Rat{sub(one, pr), pr}, p: pr, scale: one}
	for _, q := range append([]float64{qy}, qz...) {
		qr := exact(q)
		w := [][]*big.Rat{{sub(one, qr), qr}, {qr, sub(one, qr)}}
		m.obs = append(m.obs, m.newObserver(w, nil))
	}
	return m
}

type observerConfig struct {
	Channel [][]float64 `json:"channel"`
	Loss    [][]float64 `json:"loss,omitempty"`
}

type finiteConfig struct {
	Prior         []float64        `json:"prior"`
	Reconstructor observerConfig   `json:"reconstructor"`
	Adversaries   []observerConfig `json:"adversaries"`
}

// finiteModel reads {"prior", "reconstructor", "adversaries"} with mmds's
// checks: at most 64 values per alphabet and 64 adversaries, probabilities
// in [0, 1] whose rows sum to 1 within 1e-9, losses finite and ≥ 0.
func finiteModel(root *object) (*model, finiteConfig) {
	var cfg finiteConfig
	cfg.Prior = numbers(root.key("prior"), root.get("prior"))
	n := len(cfg.Prior)
	rejectIf(n == 0 || n > 64, "%s has %d entries: want 1 to 64", root.key("prior"), n)
	checkDist(root.key("prior"), cfg.Prior)
	readObs := func(path string, v any) observerConfig {
		o := asObject(path, v)
		c := observerConfig{Channel: matrix(path+".channel", o.get("channel"))}
		o.used["loss"] = true
		if o.has("loss") {
			c.Loss = matrix(path+".loss", o.m["loss"])
			rejectIf(len(c.Loss) == 0, "%s.loss is empty", path)
		}
		o.done()
		checkShape(path+".channel", c.Channel, n)
		for x, row := range c.Channel {
			checkDist(fmt.Sprintf("%s.channel[%d]", path, x), row)
		}
		if c.Loss != nil {
			checkShape(path+".loss", c.Loss, n)
			for x, row := range c.Loss {
				rejectIf(slices.ContainsFunc(row, func(v float64) bool { return !(v >= 0) }), "%s.loss[%d]: want finite losses ≥ 0", path, x)
			}
		}
		return c
	}
	cfg.Reconstructor = readObs(root.key("reconstructor"), root.get("reconstructor"))
	advs := root.list("adversaries")
	rejectIf(len(advs) == 0 || len(advs) > 64, "%s has %d entries: want 1 to 64", root.key("adversaries"), len(advs))
	for i, a := range advs {
		cfg.Adversaries = append(cfg.Adversaries, readObs(fmt.Sprintf("%s[%d]", root.key("adversaries"), i), a))
	}
	root.done()
	m := &model{kind: "finite", n: n}
	for _, p := range cfg.Prior {
		m.prior = append(m.prior, exact(p))
	}
	m.scale = new(big.Rat)
	for _, c := range append([]observerConfig{cfg.Reconstructor}, cfg.Adversaries...) {
		var l [][]*big.Rat
		if c.Loss != nil {
			l = ratMatrix(c.Loss)
			for _, row := range l {
				for _, v := range row {
					m.scale = maxRat(m.scale, v)
				}
			}
		}
		m.obs = append(m.obs, m.newObserver(ratMatrix(c.Channel), l))
	}
	if m.scale.Sign() == 0 {
		// mmds's loss scale is the largest entry of the loss matrices a
		// file gives, 1 when it gives none (0-1 losses).
		m.scale = ratInt(1)
	}
	return m, cfg
}

func checkShape(path string, v [][]float64, n int) {
	rejectIf(len(v) != n, "%s has %d rows: want one per value of X (%d)", path, len(v), n)
	for _, row := range v {
		rejectIf(len(row) == 0 || len(row) != len(v[0]) || len(row) > 64, "%s: rows must have one common length from 1 to 64", path)
	}
}

// checkDist refuses entries outside [0, 1] and a float64 sum off 1 by
// more than 1e-9 (mmds's test of a probability vector).
func checkDist(path string, v []float64) {
	var s float64
	for _, p := range v {
		rejectIf(!(p >= 0 && p <= 1), "%s: %v is not a probability", path, p)
		s += p
	}
	rejectIf(math.Abs(s-1) > 1e-9, "%s sums to %v: want 1 within 1e-9", path, s)
}

// newObserver builds the loss vectors; l nil is the 0-1 loss on the
// estimates 0..n−1.
func (m *model) newObserver(w, l [][]*big.Rat) observer {
	o := observer{w: w, l: l}
	if l == nil {
		o.zeroOne = true
		for x := range m.n {
			row := make([]*big.Rat, m.n)
			for a := range row {
				row[a] = ratInt(0)
				if a != x {
					row[a] = ratInt(1)
				}
			}
			o.l = append(o.l, row)
		}
	}
	o.k = make([][][]*big.Rat, len(w[0]))
	for v := range o.k {
		o.k[v] = make([][]*big.Rat, len(o.l[0]))
		for a := range o.k[v] {
			for x := range m.n {
				o.k[v][a] = append(o.k[v][a], mul(mul(m.prior[x], w[x][v]), o.l[x][a]))
			}
		}
	}
	return o
}

// dot is ⟨k, c⟩.
func dot(k, c []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for x := range k {
		addTo(s, k[x], c[x])
	}
	return s
}

// columnRisk is ρ(c) = Σ_v min_a ⟨k_va, c⟩, an observer's risk from one
// output whose column is c.
func (o observer) columnRisk(c []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, ks := range o.k {
		var best *big.Rat
		for _, k := range ks {
			if v := dot(k, c); best == nil || v.Cmp(best) < 0 {
				best = v
			}
		}
		s.Add(s, best)
	}
	return s
}

// risk is the observer's Bayes risk under the mechanism p (rows x,
// columns f, each row a distribution).
func (o observer) risk(p [][]*big.Rat) *big.Rat {
	s := new(big.Rat)
	for f := range p[0] {
		c := make([]*big.Rat, len(p))
		for x := range p {
			c[x] = p[x][f]
		}
		s.Add(s, o.columnRisk(c))
	}
	return s
}

// losses returns every observer's risk under p: the reconstructor's, then
// the adversaries'.
func (m *model) losses(p [][]*big.Rat) []*big.Rat {
	out := make([]*big.Rat, len(m.obs))
	for i, o := range m.obs {
		out[i] = o.risk(p)
	}
	return out
}

// dMin is the smallest reconstructor loss any privatizer has, that of
// F = X: Σ_x π(x)·min_a L_R(x, a).
func (m *model) dMin() *big.Rat {
	s := new(big.Rat)
	for x, p := range m.prior {
		addTo(s, p, minOf(m.recon().l[x]))
	}
	return s
}

// noRelease is every observer's risk from its side information alone (one
// output): no release can raise a Bayes risk above it.
func (m *model) noRelease() []*big.Rat {
	col := make([][]*big.Rat, m.n)
	for x := range col {
		col[x] = []*big.Rat{ratInt(1)}
	}
	return m.losses(col)
}

// lossRange is max_a L(x, a) − min_a L(x, a).
func (o observer) lossRange(x int) *big.Rat {
	lo, hi := o.l[x][0], o.l[x][0]
	for _, v := range o.l[x] {
		lo, hi = minRat(lo, v), maxRat(hi, v)
	}
	return sub(hi, lo)
}

// riskShift bounds how far any observer's risk moves when row x of a
// channel moves by l1[x] in ℓ1 with its sum unchanged (mmds's
// privatizer.RiskShift): max over observers of Σ_x π(x)·l1[x]·range_x/2,
// times 1 + 2⁻⁴⁰ (mmds's allowance for its own float64 rounding).
func (m *model) riskShift(l1 []*big.Rat) *big.Rat {
	best := new(big.Rat)
	half := big.NewRat(1, 2)
	for _, o := range m.obs {
		s := new(big.Rat)
		for x, e := range l1 {
			addTo(s, mul(m.prior[x], e), mul(o.lossRange(x), half))
		}
		best = maxRat(best, s)
	}
	return mul(best, add(ratInt(1), new(big.Rat).SetFrac64(1, 1<<40)))
}

// normalizeRows divides each row of p by its exact sum (rows must have a
// positive sum) and returns the sums too.
func normalizeRows(path string, p [][]float64) ([][]*big.Rat, []*big.Rat) {
	out, sums := make([][]*big.Rat, len(p)), make([]*big.Rat, len(p))
	for x, row := range p {
		for _, v := range row {
			rejectIf(!(v >= 0), "%s[%d]: %v is not a probability", path, x, v)
			out[x] = append(out[x], exact(v))
		}
		if sums[x] = sum(out[x]); sums[x].Sign() == 0 {
			reject("%s[%d] sums to 0", path, x)
		}
		for f := range out[x] {
			out[x][f] = quo(out[x][f], sums[x])
		}
	}
	return out, sums
}

// readMechanism reads a mechanism of n rows, each a distribution (entries
// ≥ 0 summing to 1 within 1e-9, as float64 numbers do, in rows of one
// length), and divides each row by its sum: a row that is not a
// distribution would make a number of it one the division ignores.
func readMechanism(path string, v any, n int) [][]*big.Rat {
	mech := matrix(path, v)
	rejectIf(len(mech) != n, "%s: want %d rows", path, n)
	p, sums := normalizeRows(path, mech)
	for x, s := range sums {
		rejectIf(len(mech[x]) != len(mech[0]) || abs(sub(s, ratInt(1))).Cmp(exact(1e-9)) > 0, "%s[%d]: want rows of one length, each summing to 1 within 1e-9", path, x)
	}
	return p
}

// readS reads a binary-output privatizer [s0, s1] as its channel.
func readS(path string, v any) [][]*big.Rat {
	s := numbers(path, v)
	rejectIf(len(s) != 2 || !(s[0] >= 0 && s[0] <= 1 && s[1] >= 0 && s[1] <= 1), "%s: want [s0, s1] in [0, 1]", path)
	return binaryChannel(exact(s[0]), exact(s[1]))
}
