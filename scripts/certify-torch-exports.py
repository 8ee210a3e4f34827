#!/usr/bin/python3
"""Certifies every export scripts/torch-exports.py wrote into DIR.

    /usr/bin/python3 scripts/certify-torch-exports.py DIR [MMDS]

MMDS (default bin/mmds) certifies binary-model networks at D = 0.15 on
examples/binary-paper.json and the Gaussian one at its D on
paper/gauss/model.json. Prints one line per file (outcome, stated error and
its rounding part, and for binary networks the rounding bound of each row
against PyTorch's observed mean and largest float32 deviation), then the
counts by outcome and the CPU seconds. docs/certify.md records a run.
"""
import json
import os
import resource
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUTCOME = {0: "pass", 1: "fail", 3: "cannot certify"}


def main():
    d = sys.argv[1]
    mmds = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "bin", "mmds")
    manifest = json.load(open(os.path.join(d, "manifest.json")))
    counts = {}
    for n in manifest["networks"]:
        cfg = os.path.join(ROOT, "paper/gauss/model.json" if n["model"] == "gauss" else "examples/binary-paper.json")
        for f in n["files"]:
            p = subprocess.run([mmds, "certify", "--quiet", "--model", cfg, "--privatizer", os.path.join(d, f),
                                "--d", repr(n.get("D", 0.15)), "--format", "json"], capture_output=True, text=True)
            o = OUTCOME.get(p.returncode, "exit %d" % p.returncode)
            counts[o] = counts.get(o, 0) + 1
            line = "%-32s %-15s" % (f, o)
            if p.returncode in (0, 1, 3) and p.stdout:
                pt = json.loads(p.stdout)["points"][0]
                if pt.get("change") is not None:
                    line += " error %.3g (rounding %.3g)" % (pt["change"], pt.get("rounding") or 0)
                if o == "cannot certify":
                    line += " " + pt["verdict"][:90]
            print(line)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    for o, c in sorted(counts.items()):
        print("%s: %d" % (o, c))
    print("CPU seconds of mmds: %.1f" % (ru.ru_utime + ru.ru_stime))


if __name__ == "__main__":
    main()
