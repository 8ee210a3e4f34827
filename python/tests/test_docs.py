"""docs/python.md's example, run: every ```pycon block of the page, in
order, in one namespace (a notebook's cells), from the repository's root,
with doctest comparing what each line prints with what the page shows.

MMDS_DOCS_UPDATE=1 make test-python rewrites the page's outputs with what
the lines print (review the diff), as go test ./cmd/mmds -run TestREADME
-update does for the $ mmds examples.
"""
import contextlib
import doctest
import io
import os
import re
import sys
import traceback
import unittest
from pathlib import Path

REPO = Path(os.environ.get("MMDS_REPO") or Path(__file__).resolve().parents[2])
PAGE = REPO / "docs" / "python.md"
BLOCK = re.compile(r"^```pycon\n(.*?)^```$", re.S | re.M)


def blocks(text):
    """(lines before its body, body) of each ```pycon block: doctest
    numbers an example's line from there."""
    return [(text.count("\n", 0, m.start(1)), m.group(1)) for m in BLOCK.finditer(text)]


def run_cell(source, globs):
    """What the REPL prints for one example: stdout and the displayhook's
    repr, or the exception as doctest shows it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            code = compile(source, "<docs/python.md>", "single")
            old = sys.displayhook
            sys.displayhook = lambda v: None if v is None else print(repr(v))
            try:
                exec(code, globs)
            finally:
                sys.displayhook = old
        except Exception as e:  # shown as the page shows it
            last = traceback.format_exception_only(type(e), e)[-1]
            return out.getvalue() + "Traceback (most recent call last):\n  ...\n" + last
    return out.getvalue()


def rewrite(body, globs):
    parts = []
    for ex in doctest.DocTestParser().get_examples(body):
        lines = ex.source.rstrip("\n").split("\n")
        parts.append(">>> " + "\n".join([lines[0]] + [("... " + l).rstrip() for l in lines[1:]]) + "\n")
        parts.append(run_cell(ex.source, globs))
    return "".join(parts)


class DocsPage(unittest.TestCase):
    def test_python_md(self):
        text = PAGE.read_text(encoding="utf-8")
        found = blocks(text)
        self.assertGreaterEqual(len(found), 3, f"{PAGE}: the example's ```pycon blocks")
        cwd = os.getcwd()
        os.chdir(REPO)  # the page's paths are the repository's (examples/…)
        try:
            globs = {"__name__": "__main__"}
            if os.environ.get("MMDS_DOCS_UPDATE"):  # in order: the cells share globs
                PAGE.write_text(BLOCK.sub(lambda m: "```pycon\n" + rewrite(m.group(1), globs) + "```", text),
                                encoding="utf-8")
                return
            parser, failures = doctest.DocTestParser(), []
            runner = doctest.DocTestRunner(optionflags=doctest.REPORT_NDIFF)
            for line, body in found:
                test = parser.get_doctest(body, globs, "docs/python.md", str(PAGE), line)
                out = io.StringIO()
                res = runner.run(test, out=out.write, clear_globs=False)
                globs = test.globs  # a DocTest runs in a copy: the next cell sees this one's names
                if res.failed:
                    failures.append(out.getvalue())
            if failures:
                self.fail("docs/python.md shows other output than its lines print "
                          "(MMDS_DOCS_UPDATE=1 make test-python rewrites it):\n" + "".join(failures))
        finally:
            os.chdir(cwd)


if __name__ == "__main__":
    unittest.main()
