package main

import (
	"fmt"
	"math/big"
	"strings"
)

// Certificates (docs/check.md, "Certificates"): the file mmds certify
// --certificate writes. The checker reads the model and every privatizer
// the certificate names, checks their hashes, recomputes each point's
// numbers — the certified losses and their stated error, the optima at D̂
// and at D from their witnesses, the gaps, the distortion band and the
// adversarial tolerance from the tolerances — and the verdicts and counts
// from those numbers.

// checker holds what every claim of one file is checked against.
type checker struct {
	m      *model
	prec   precision
	claims int
}

// precision is how far a stated number may lie from its recomputation
// (absolute, in loss units): value for numbers that are finite sums,
// optimum for the width of an optimum's bracket.
type precision struct{ value, optimum *big.Rat }

// equal checks a stated number against its exact value.
func (c *checker) equal(name string, stated float64, want *big.Rat) {
	failIf(abs(sub(exact(stated), want)).Cmp(c.prec.value) > 0, "%s = %v, but it is %.17g (the certificate's precision is %v)", name, stated, fl(want), fl(c.prec.value))
	c.claims++
}

// tolerances are the verdict's policy inputs (docs/verify.md), as stated.
type tolerances struct {
	bandTau, tau, distSE, advSE, quad, abs *big.Rat
	n                                      int64
	best                                   bool // --reference best: on the binary model, the global optimum
}

func readTolerances(t *object) tolerances {
	r := func(k string) *big.Rat {
		v := t.num(k)
		rejectIf(!(v >= 0), "tolerances.%s = %v: want ≥ 0", k, v)
		return exact(v)
	}
	tol := tolerances{bandTau: r("band_tau"), tau: r("tau"), distSE: r("dist_se"), advSE: r("adv_se"), quad: r("quad"), abs: r("abs")}
	n := t.num("test_size")
	rejectIf(n != float64(int64(n)) || n < 1 || n > 1e9, "tolerances.test_size = %v: want a whole number in [1, 1e9]", n)
	tol.n = int64(n)
	if tol.best = t.str("reference") == "best"; !tol.best && t.str("reference") != "paper" {
		reject("tolerances.reference %s: want paper or best", quote(t.str("reference")))
	}
	t.done()
	return tol
}

// checkCertificate checks a certificate of mmds certify.
func checkCertificate(path string, root *object) string {
	root.str("mmds_version") // which mmds wrote it: a name, not a claim
	kind := root.str("model")
	notCoveredIf(kind == "gauss", "a certificate on the Gaussian model (docs/check.md, \"Not covered\")")
	notCoveredIf(!root.has("witness"), "the certificate carries no witness (written before %s), so its optima cannot be checked: certify again with this mmds", witnessFormat)
	mb := readFile(certFile(path, "model_file", root.str("model_file")), maxModelBytes)
	m := readModel(kind, asObject("model", parseJSON(mb)))
	c := &checker{m: m}
	c.checkHash(root, "the model file")
	w := root.obj("witness")
	if f := w.str("format"); f != witnessFormat {
		reject("witness.format %s: this checker reads %s", quote(f), witnessFormat)
	}
	c.readScale(w)
	w.done()
	tol := readTolerances(root.obj("tolerances"))
	out := map[string]int{} // the points' outcomes
	points := root.list("points")
	rejectIf(len(points) == 0, "the certificate has no points")
	var r *results // a certificate of mmds verify: a results directory's points
	if root.str("config_sha256") != "" {
		if r = readRun(path, root, m); len(points) != len(r.d) {
			fail("the certificate has %d points, the run's configuration %d thresholds", len(points), len(r.d))
		}
	}
	for i, p := range points {
		name := fmt.Sprintf("points[%d]", i)
		out[c.point(path, name, asObject(name, p), tol, r, i)]++
	}
	// The counts of the outcomes, and pass.
	for _, k := range [][2]string{{"passed", "pass"}, {"failed", "fail"}, {"cannot_certify", "cannot certify"}, {"not_finalized", "not finalized"}, {"not_trained", "not trained"}} {
		got := 0.0
		if k[0] != "cannot_certify" || root.has(k[0]) {
			got = root.num(k[0])
		}
		if root.used[k[0]] = true; got != float64(out[k[1]]) {
			fail("%s = %v, but %d points say so", k[0], got, out[k[1]])
		}
		c.claims++
	}
	if pass := root.boolean("pass"); pass != (out["pass"] == len(points)) {
		fail("pass is %v, but %d of %d points pass", pass, out["pass"], len(points))
	}
	c.claims++
	root.done()
	verdict := "FAIL"
	if out["pass"] == len(points) {
		verdict = "PASS"
	}
	counts := fmt.Sprintf("%d pass, %d fail, %d cannot certify", out["pass"], out["fail"], out["cannot certify"])
	if r != nil {
		counts += fmt.Sprintf(", %d not finalized, %d not trained", out["not finalized"], out["not trained"])
	}
	noun := "points"
	if len(points) == 1 {
		noun = "point"
	}
	return fmt.Sprintf("%d claims: %s model, %d %s (%s): %s", c.claims, kind, len(points), noun, counts, verdict)
}

// checkHash checks the model_sha256 that o states against the model's
// canonical hash.
func (c *checker) checkHash(o *object, model string) {
	if h := o.str("model_sha256"); h != c.m.hash {
		fail("model_sha256 is %s, but %s's canonical encoding has %s", quote(h), model, c.m.hash)
	}
	c.claims++
}

// readScale checks the loss scale o states (exactly the model's) and reads
// its precision.
func (c *checker) readScale(o *object) {
	if s := o.num("loss_scale"); exact(s).Cmp(c.m.scale) != 0 {
		fail("%s = %v, but the model's loss scale is %v", o.key("loss_scale"), s, fl(c.m.scale))
	}
	c.claims++
	c.prec = readPrecision(o.obj("precision"), c.m.scale)
}

// readPrecision reads the precision a file states, at most the checker's
// caps (its policy: 1e-9 and 1e-6 of the loss scale): a file that claims
// its numbers only more coarsely claims too little to check a verdict by.
func readPrecision(p *object, scale *big.Rat) precision {
	v, o := p.num("value"), p.num("optimum")
	rejectIf(!(v >= 0 && o >= 0), "%s: want numbers ≥ 0", p.path)
	failIf(exact(v).Cmp(mul(exact(1e-9), scale)) > 0 || exact(o).Cmp(mul(exact(1e-6), scale)) > 0, "%s: value %v and optimum %v: this checker accepts at most 1e-9 and 1e-6 of the loss scale", p.path, v, o)
	p.done()
	return precision{value: exact(v), optimum: exact(o)}
}

// point checks one point of a certificate and returns its outcome.
// A point of a certificate of mmds verify (r set) is the run's i-th
// threshold, its privatizer the record's; else it names a file.
func (c *checker) point(certPath, path string, p *object, tol tolerances, r *results, i int) string {
	m := c.m
	d := p.num("D")
	rejectIf(!(d >= 0), "%s.D = %v: want ≥ 0", path, d)
	var readPriv func() privatizer
	if r != nil {
		priv, ok := r.record(path, i, p)
		c.claims++
		if !ok {
			return p.str("status")
		}
		readPriv = func() privatizer { return priv }
	} else {
		name := p.str("privatizer")
		b := readFile(certFile(certPath, path+".privatizer", name), maxPrivatizerBytes)
		if h := p.str("point_sha256"); h != sha256Hex(b) {
			fail("%s.point_sha256 is %s, but %s has %s", path, quote(h), quote(name), sha256Hex(b))
		}
		c.claims++
		readPriv = func() privatizer { return readPrivatizer(name, b) }
	}
	status, pass, verdict := p.str("status"), p.boolean("pass"), p.str("verdict")
	if status == "cannot certify" && !p.has("certified") {
		// No numbers: the point claims nothing about the privatizer.
		failIf(pass || !strings.HasPrefix(verdict, "cannot certify"), "%s: status cannot certify, but pass %v and verdict %s", path, pass, quote(verdict))
		p.done()
		return "cannot certify"
	}
	rejectIf(status != "certified" && status != "cannot certify", "%s.status %s: want certified or cannot certify", path, quote(status))
	priv := readPriv()
	w := p.obj("witness")
	iv, errBound, rounding := c.certifiedIntervals(path, priv, w)

	// The certified losses are the ends a verdict assumes: the
	// reconstructor's upper end (D̂) and each adversary's lower end.
	cert, ends := p.obj("certified"), []*big.Rat{iv[0].hi}
	for _, a := range iv[1:] {
		ends = append(ends, a.lo)
	}
	recon, minAdv := cert.num("recon_loss"), c.lossesEqual(path+".certified", cert, ends)
	cert.done()
	if v := p.num("D_hat"); v != recon {
		fail("%s.D_hat = %v, but certified.recon_loss = %v", path, v, recon)
	}
	errStated := p.num("error")
	c.equal(path+".error", errStated, errBound)
	c.claims += 2

	// The optima, from their witnesses.
	class := p.str("optimum_class")
	optHat, optD := p.num("optimum_at_D_hat"), p.num("optimum_at_D")
	_, global := c.optimum(path+".witness.optimum_at_D_hat", class, max(recon, 0), optHat, w.obj("optimum_at_D_hat"))
	c.optimum(path+".witness.optimum_at_D", "", d, optD, w.obj("optimum_at_D"))
	w.done()
	gap, gapD := p.num("gap"), p.num("gap_at_D")
	c.equal(path+".gap", gap, sub(exact(optHat), exact(minAdv)))
	c.equal(path+".gap_at_D", gapD, sub(exact(optD), exact(minAdv)))

	// The verdict's policy: the band D̂ must lie in, the largest gap that
	// passes, the stated-error limit.
	band := numbers(path+".distortion_band", p.get("distortion_band"))
	advTol := p.num("adv_tolerance")
	rejectIf(len(band) != 2, "%s.distortion_band: want [lo, hi]", path)
	a := mul(tol.abs, m.scale)
	seD := c.stdErr(exact(d), tol.n)
	dr := exact(d)
	lo := sub(sub(dr, mul(tol.bandTau, tol.tau)), a)
	c.within(path+".distortion_band[0]", band[0], interval{maxRat(new(big.Rat), sub(lo, mul(tol.distSE, seD.hi))), maxRat(new(big.Rat), sub(lo, mul(tol.distSE, seD.lo)))})
	c.within(path+".distortion_band[1]", band[1], interval{add(add(dr, mul(tol.distSE, seD.lo)), a), add(add(dr, mul(tol.distSE, seD.hi)), a)})
	// The verdict's reference: the paper's optimum (on a finite model, over
	// all privatizers already), or with --reference best on the binary
	// model the optimum over all privatizers at D̂, stated beside.
	ref, refGap := optHat, gap
	if p.used["reference_at_D_hat"] = true; tol.best && m.kind == "binary" {
		rejectIf(global == nil, "%s: --reference best without the global optimum's witness", path)
		ref = p.num("reference_at_D_hat")
		c.inBracket(path+".reference_at_D_hat", "all", ref, *global)
		refGap = ref - minAdv
	} else if p.has("reference_at_D_hat") {
		reject("%s.reference_at_D_hat: only with --reference best on the binary model", path)
	}
	seRef := c.stdErr(exact(ref), tol.n)
	c.within(path+".adv_tolerance", advTol, interval{add(mul(tol.advSE, seRef.lo), a), add(mul(tol.advSE, seRef.hi), a)})

	wStatus, wText, wPass := c.verdict(path, verdictInputs{recon: recon, gap: refGap, optHat: ref, errStated: errStated, rounding: rounding,
		band: band, advTol: advTol, abs: a, tol: tol})
	failIf(status != wStatus || pass != wPass || verdict != wText, "%s: the certificate says %s, pass %v, %s; its numbers give %s, pass %v, %s", path, status, pass, quote(verdict), wStatus, wPass, quote(wText))
	c.claims += 3
	p.done()
	if wStatus == "cannot certify" {
		return "cannot certify"
	}
	if pass {
		return "pass"
	}
	return "fail"
}

// within checks a stated number against an enclosure of its exact value.
func (c *checker) within(name string, stated float64, iv interval) {
	failIf(!iv.near(stated, c.prec.value), "%s = %v, but it lies in [%.17g, %.17g] (the certificate's precision is %v)", name, stated, fl(iv.lo), fl(iv.hi), fl(c.prec.value))
	c.claims++
}

// stdErr encloses the standard error of a test-split loss whose true value
// is l, from n rows: √(l(s − l)/n), l clamped to [0, s], s the loss scale
// (a mean of n losses in [0, s], Bhatia–Davis; √(l(1 − l)/n) for 0-1
// losses).
func (c *checker) stdErr(l *big.Rat, n int64) interval {
	s := c.m.scale
	l = minRat(maxRat(l, new(big.Rat)), s)
	lo, hi := sqrtBounds(quo(mul(l, sub(s, l)), ratInt(n)))
	return interval{lo, hi}
}

// certifiedIntervals returns each observer's interval of its loss (the
// reconstructor's first), the stated error it was built from and the part
// of it the runtime's rounding accounts for.
func (c *checker) certifiedIntervals(path string, priv privatizer, w *object) ([]interval, *big.Rat, *big.Rat) {
	m := c.m
	w.used["privatizer"] = true
	if priv.net != nil {
		return c.networkIntervals(path, priv.net, w)
	}
	rejectIf(w.has("privatizer"), "%s.witness.privatizer: a channel needs none", path)
	rejectIf(len(priv.channel) != m.n, "%s: the channel has %d rows, the model's X takes %d values", path, len(priv.channel), m.n)
	// A channel's losses are those of its rows divided by their sums; a
	// row off 1 by ε may hide 2ε of ℓ1 mass, which moves a risk by at most
	// riskShift.
	p, sums := normalizeRows(path, priv.channel)
	l1 := make([]*big.Rat, m.n)
	for x, s := range sums {
		l1[x] = mul(ratInt(2), abs(sub(s, ratInt(1))))
	}
	loss := m.losses(p)
	e := m.riskShift(l1)
	return m.around(loss, e), e, new(big.Rat)
}

// around is [v − e, v + e] per loss, the lower end at least 0, the upper
// end at most the observer's loss without the release (no release raises
// a Bayes loss), the lower end at most the upper.
func (m *model) around(loss []*big.Rat, e *big.Rat) []interval {
	top := m.noRelease()
	out := make([]interval, len(loss))
	for i, v := range loss {
		hi := minRat(add(v, e), top[i])
		out[i] = interval{minRat(maxRat(sub(v, e), new(big.Rat)), hi), hi}
	}
	return out
}

// verdictInputs are the stated numbers a verdict follows from.
type verdictInputs struct {
	recon, gap, optHat, errStated float64
	rounding                      *big.Rat
	band                          []float64
	advTol                        float64
	abs                           *big.Rat
	tol                           tolerances
}

// verdict recomputes mmds's verdict from the stated numbers (docs/check.md,
// "Verdict"), by exact comparison of their float64 values, and checks that
// each comparison that decides pass or fail holds by more than the
// numbers' precision.
func (c *checker) verdict(path string, v verdictInputs) (status, text string, pass bool) {
	pv, po := c.prec.value, c.prec.optimum
	robust := func(what string, a, b float64, margin *big.Rat) {
		failIf(abs(sub(exact(a), exact(b))).Cmp(margin) <= 0, "%s: the verdict rests on %s (%v against %v), closer than the numbers' precision %v", path, what, a, b, fl(margin))
	}
	quad := fl(v.tol.quad)
	robust("the stated error against its limit", v.errStated, quad, pv)
	if !(v.errStated <= quad) {
		text := fmt.Sprintf("cannot certify: stated error %.2g above the limit %.2g (--tol-quad)", v.errStated, quad)
		if v.rounding.Cmp(quo(v.tol.quad, ratInt(2))) > 0 {
			text = fmt.Sprintf("cannot certify: stated error %.2g, of which %.2g the rounding of the network's runtime precision, above the limit %.2g (--tol-quad)", v.errStated, fl(v.rounding), quad)
		}
		return "cannot certify", text, false
	}
	var why []string
	two := mul(ratInt(2), pv)
	if v.band[0] > 0 {
		robust("D̂ against the band's lower end", v.recon, v.band[0], two)
	}
	robust("D̂ against the band's upper end", v.recon, v.band[1], two)
	if !(v.recon >= v.band[0] && v.recon <= v.band[1]) {
		why = append(why, fmt.Sprintf("distortion %.4g outside [%.4g, %.4g]", v.recon, v.band[0], v.band[1]))
	}
	if !(v.gap <= v.advTol) {
		why = append(why, fmt.Sprintf("gap %.4g > %.4g", v.gap, v.advTol))
		// Fail by more than the gap's and the tolerance's precision; the
		// tolerance follows the optimum, known to po, and
		// |√(u(s−u)/n) − √(w(s−w)/n)| ≤ √(s·|u − w|/n).
		_, spread := sqrtBounds(quo(mul(mul(ratInt(2), po), c.m.scale), ratInt(v.tol.n)))
		robust("the gap against the adversarial tolerance", v.gap, v.advTol, add(add(two, po), mul(v.tol.advSE, spread)))
	} else {
		// Pass at both ends of the optimum's precision: gap − tolerance is
		// convex in the optimum, so its largest value is at an end.
		for _, e := range []*big.Rat{neg(po), po} {
			opt := maxRat(add(exact(v.optHat), e), new(big.Rat))
			g := add(sub(opt, exact(v.optHat)), exact(v.gap))
			failIf(add(g, two).Cmp(add(mul(v.tol.advSE, c.stdErr(opt, v.tol.n).lo), v.abs)) >= 0, "%s: the verdict rests on the gap against the adversarial tolerance (%v against %v), closer than the numbers' precision allows", path, v.gap, v.advTol)
		}
	}
	if len(why) > 0 {
		return "certified", "fail: " + strings.Join(why, "; "), false
	}
	// A gap below −max(a, error·optimum) is a privatizer above the optimum
	// by more than the numbers' error (a label; it passes either way).
	floor := maxRat(v.abs, mul(exact(v.errStated), exact(v.optHat)))
	if exact(v.gap).Cmp(neg(floor)) < 0 {
		return "certified", "pass (above optimum)", true
	}
	return "certified", "pass", true
}
