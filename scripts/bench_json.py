"""bench_json.py: reading benchmark results as JSON lines (one object per line), shared
by coll_model.py and coll_plots.py. Lines that are not JSON objects, or lack a
required field, are skipped, so whole logs can be passed."""

import json

# the fields every collective measurement carries (ghz-coll-bench, ghz-image-stacking)
REQUIRED = ("size", "nranks", "coll", "path", "time_us")


def json_lines(paths, required=REQUIRED):
    """Yields (path, line number, object) for every usable line of the files."""
    for path in paths:
        with open(path) as f:
            for ln, line in enumerate(f, 1):
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    o = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(o, dict) and all(k in o for k in required):
                    yield path, ln, o
