package main

import (
	"fmt"
	"math/big"
)

// Witness files (docs/check.md, "Witness files"): what mmds binary
// --witness and mmds finite --witness write. The model is inline; per
// threshold the file restates the optimum as the command reported it — its
// privatizer, that privatizer's losses, the class — with the witness that
// proves it.
func checkWitnessFile(root *object) string {
	kind := root.str("model")
	m := readModel(kind, root.obj("config"))
	c := &checker{m: m}
	c.checkHash(root, "config")
	c.readScale(root)
	optima := root.list("optima")
	for i, o := range optima {
		path := fmt.Sprintf("optima[%d]", i)
		c.reportedOptimum(path, asObject(path, o))
	}
	root.done()
	return fmt.Sprintf("%d claims: %s model, %d optima", c.claims, kind, len(optima))
}

// reportedOptimum checks one optimum as a command reported it.
func (c *checker) reportedOptimum(path string, o *object) {
	m := c.m
	d := o.num("D")
	rejectIf(!(d >= 0), "%s.D = %v: want ≥ 0", path, d)
	class := o.str("class")
	if class == "infeasible" {
		// Below D_min no privatizer meets D: not even F = X.
		failIf(exact(d).Cmp(m.dMin()) >= 0, "%s: D = %v is infeasible, but F = X has reconstructor loss %.17g ≤ D", path, d, fl(m.dMin()))
		o.done()
		c.claims++
		return
	}
	var p [][]*big.Rat
	if m.kind == "binary" {
		p = readS(path+".s", o.get("s"))
	} else {
		p = readMechanism(path+".mechanism", o.get("mechanism"), m.n)
	}
	loss := m.losses(p)
	minAdv := c.lossesEqual(path, o, loss)
	// The solver's privatizer meets D to the optimum's precision (the
	// witness's own meets it exactly).
	failIf(loss[0].Cmp(add(exact(d), c.prec.optimum)) > 0, "%s: the reported privatizer's reconstructor loss %.17g exceeds D = %v", path, fl(loss[0]), d)
	br, global := c.optimum(path+".witness", class, d, minAdv, o.obj("witness"))
	o.used["upper_bound"] = true
	if o.has("upper_bound") {
		// A reported upper bound is proven when the witness's is below it.
		if u := o.num("upper_bound"); br.hi == nil || exact(u).Cmp(sub(br.hi, c.prec.optimum)) < 0 {
			fail("%s.upper_bound = %v is not above the witnessed upper bound", path, u)
		}
		c.claims++
	}
	o.used["global_min_adv_loss"] = true
	if o.has("global_min_adv_loss") {
		rejectIf(global == nil, "%s: global_min_adv_loss without the global optimum's witness", path)
		c.inBracket(path+".global_min_adv_loss", "all", o.num("global_min_adv_loss"), *global)
	}
	o.done()
	c.claims += 3
}
