"""What one student costs a class hub, per lecture: the kernel's peak memory and CPU seconds for
one top-to-bottom run of each lecture notebook, printed as a markdown table
(docs/teaching-a-class.md quotes it).

    .venv/bin/python benchmarks/class_resources.py              # every notebook in notebooks/
    .venv/bin/python benchmarks/class_resources.py 12 02b       # lectures whose file starts so

Each notebook runs in a fresh kernel of this Python (nbclient), in its own folder as a student's
server runs it, pinned to one core (``--core``, default 0; the kernel inherits this process's
affinity) with ``OMP_NUM_THREADS=1``, i.e. as one student's share of a busy hub. After the last
cell the kernel itself reports ``getrusage``: peak memory is the kernel process's resident-set
high-water mark (``ru_maxrss``, plus that of any child it waited for), CPU seconds are its user +
system time (children included) from start-up to the end, imports included. Wall time is
measured here and depends on how busy the core was; memory and CPU seconds hardly do.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

# Run in the kernel after the notebook's last cell (same probe as tests/test_hub.py).
PROBE = (
    "import json as _j, resource as _r\n"
    "_s, _c = _r.getrusage(_r.RUSAGE_SELF), _r.getrusage(_r.RUSAGE_CHILDREN)\n"
    "print('LK_RUSAGE ' + _j.dumps({'peak_mb': max(_s.ru_maxrss, _c.ru_maxrss) / 1024,\n"
    "    'cpu_s': _s.ru_utime + _s.ru_stime + _c.ru_utime + _c.ru_stime}))"
)


def measure(path: Path, timeout: int = 1200) -> dict:
    """Run ``path`` top to bottom in a fresh kernel; its peak memory (MB), CPU and wall seconds."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    wall = time.perf_counter() - start
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    if errors:
        raise RuntimeError(f"{path.name}: {errors[0]['ename']}: {errors[0]['evalue']}")
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o["output_type"] == "stream")
    usage = json.loads(text.split("LK_RUSAGE ", 1)[1])
    return {"notebook": path.name, "wall_s": wall, **usage}


def table(rows: list[dict]) -> str:
    lines = [
        "| Lecture notebook | Peak memory (MB) | CPU seconds | Wall seconds |",
        "|---|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['notebook']}` | {r['peak_mb']:.0f} | {r['cpu_s']:.1f} | {r['wall_s']:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lectures", nargs="*", help="file-name prefixes (default: all notebooks)")
    parser.add_argument("--core", type=int, default=0, help="the one CPU core to run on")
    parser.add_argument("--json", type=Path, help="also write the rows to this JSON file")
    args = parser.parse_args(argv)

    paths = sorted(NOTEBOOKS.glob("*.ipynb"))
    if args.lectures:
        paths = [p for p in paths if any(p.name.startswith(x) for x in args.lectures)]
    if not paths:
        parser.error("no notebook matches")
    os.sched_setaffinity(0, {args.core})  # inherited by every kernel started from here
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    rows = []
    for path in paths:
        rows.append(measure(path))
        r = rows[-1]
        print(
            f"{path.name}: {r['peak_mb']:.0f} MB, {r['cpu_s']:.1f} CPU s, {r['wall_s']:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    print(
        f"Measured on {platform.machine()} {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, one core, one thread per kernel:\n"
    )
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
