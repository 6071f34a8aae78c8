#!/usr/bin/env python3
"""Test of scripts/results_update.py (CTest scripts.results_update, label cpu).

results/sample.md holds every kind of marked section; results/*.json* are benchmark
rows: the ghz-bench ones carry the numbers of rows of docs/RESULTS.md (as the JSON of
the run that printed them would), the ghz-coll-bench one is a real 2-rank CPU run.
results/expected.md was written by hand: the codec, homo and fixed rows are copied from
docs/RESULTS.md, so the script must print ghz-bench's tables digit for digit. Also
checked: --check, a second run changing nothing, and bad markers leaving the file as
it was."""
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "results"
SCRIPT = HERE.parent.parent / "scripts" / "results_update.py"
INPUTS = [str(DATA / n) for n in ("bench_codec.json", "bench_homo.json", "bench_fixed.json",
                                  "coll_allreduce_np2.jsonl")]
failures = []


def run(doc, *extra):
    p = subprocess.run([sys.executable, str(SCRIPT), "--doc", str(doc), *extra, *INPUTS],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def expect(cond, what, output=""):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}\n{output}")


with tempfile.TemporaryDirectory() as tmp:
    doc = pathlib.Path(tmp) / "page.md"
    shutil.copy(DATA / "sample.md", doc)
    want = (DATA / "expected.md").read_text()

    rc, out = run(doc, "--check")
    expect(rc == 1 and doc.read_text() == (DATA / "sample.md").read_text(),
           "--check on a stale page exits 1 and writes nothing", out)

    rc, out = run(doc)
    got = doc.read_text()
    expect(rc == 0, "update exits 0", out)
    if got != want:
        import difflib
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            "expected.md", "result"))
        expect(False, "the page equals expected.md", diff)

    rc, out = run(doc, "--check")
    expect(rc == 0 and "no change" in out, "a second run (--check) finds nothing to change", out)

    for name, text in (("end without begin", "a\n<!-- results:homo:end -->\n"),
                       ("begin without end", "<!-- results:homo:begin -->\nold\n"),
                       ("nested sections", "<!-- results:homo:begin -->\n<!-- results:codec:begin -->\n"
                                           "<!-- results:codec:end -->\n<!-- results:homo:end -->\n"),
                       ("unknown kind", "<!-- results:nope:begin -->\n<!-- results:nope:end -->\n")):
        doc.write_text(text)
        rc, out = run(doc)
        expect(rc == 2 and doc.read_text() == text, f"{name}: exit 2, page untouched", out)

    shutil.copy(DATA / "sample.md", doc)
    rc, out = run(doc, str(DATA / "sample.md"))
    expect(rc == 2 and "no ghz-bench or ghz-coll-bench rows" in out,
           "a file without benchmark rows is refused (exit 2)", out)

print(f"{len(failures)} failure(s)" if failures else "ok")
sys.exit(1 if failures else 0)
