"""bench_json.py: reading benchmark results as JSON lines (one object per line), shared
by coll_model.py, coll_plots.py and results_update.py. Lines that are not JSON objects, or lack a
required field, are skipped, so whole logs can be passed."""

import json

# the fields every collective measurement carries (ghz-coll-bench, ghz-image-stacking)
REQUIRED = ("size", "nranks", "coll", "path", "time_us")

# ghz-coll-bench writes each measurement twice, out of place (oop_) and in place (ip_);
# the readers take the out-of-place one under the plain names
OOP_KEYS = ("time_us", "algbw", "busbw", "ratio", "bound_abs", "maxerr")


def plain_keys(o):
    """o with ghz-coll-bench's out-of-place values also under the plain names (those
    present and not null, where the call ran); other objects unchanged."""
    if "time_us" in o or not o.get("oop_ok"):
        return o
    o = dict(o)
    for k in OOP_KEYS:
        if o.get("oop_" + k) is not None:
            o[k] = o["oop_" + k]
    return o


def objects(lines):
    """Yields (line number, object) for every line that is a JSON object."""
    for ln, line in enumerate(lines, 1):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            o = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(o, dict):
            yield ln, o


def json_lines(paths, required=REQUIRED):
    """Yields (path, line number, object) for every usable line of the files."""
    for path in paths:
        with open(path) as f:
            for ln, o in objects(f):
                o = plain_keys(o)
                if all(k in o for k in required):
                    yield path, ln, o
