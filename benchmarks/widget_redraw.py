"""How long each widget makes a student wait: the time from setting one control to the widget
holding its new picture, kernel side, pinned to one core (as on Binder), printed as a table.

    .venv/bin/python benchmarks/widget_redraw.py                  # every registered widget
    .venv/bin/python benchmarks/widget_redraw.py beam pe          # widgets whose name contains ...
    .venv/bin/python benchmarks/widget_redraw.py --pace 2     # as a student meets them
    .venv/bin/python benchmarks/widget_redraw.py --core 1 --json out.json

Each widget is built as its notebook builds it
(``lecturekit_publish.figures.widget_spec(name).func()``,
the same inputs). Then, from its first setting, each control in turn steps through the values
the course website pre-renders for it (``derive_grid``, tools/: every option of a dropdown, up to 12
values of a slider) and goes back to where it started; every step is one ``control.value = v``
timed with ``perf_counter`` until the call returns (ipywidgets runs the observers, so the image
widget then holds the new PNG). Only a setting's first visit is counted (a return to a setting
already drawn is not), so a cache of drawn frames cannot flatter the numbers. Per widget:
the median and the worst step, and the build time. The goal (issue 39): median <= 100 ms,
worst <= 250 ms. A benchmark, not a test: the numbers depend on the machine and its load.

Two ways to meet a widget:
- cold (the default): every step is drawn when it is asked for; drawing ahead is off, so
  this is what one redraw costs;
- ``--pace S``: as a student meets it in a notebook: drawing ahead on (``draw_ahead(True)``,
  as in a Jupyter kernel), and S seconds of looking at the widget after it is built and after
  every step, while the kernel is idle and draws the settings one move away. A step whose
  setting is not drawn yet waits for the frame being drawn ahead, then draws its own.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time


def measure(name: str, pace: float = 0.0) -> dict[str, object]:
    from lecturekit.viz.widgets import widget_controls
    from lecturekit_publish import figures
    from lecturekit_publish.frames import derive_grid

    start = time.perf_counter()
    widget, grid = figures.widget_spec(name).func()
    build = time.perf_counter() - start
    time.sleep(pace)
    controls = widget_controls(widget)
    values = derive_grid(controls, grid)
    seen = {tuple(c.value if not isinstance(c.value, list) else tuple(c.value)
                  for c in controls.values())}  # fmt: skip
    steps: list[float] = []
    for cname, control in controls.items():
        if getattr(control.layout, "display", None) == "none":
            continue  # a hidden control (one layer only): the student cannot move it
        first = control.value
        for v in [*values[cname], first]:
            if control.value == v:
                continue
            t = time.perf_counter()
            control.value = v
            dt = time.perf_counter() - t
            time.sleep(pace)
            key = tuple(c.value if not isinstance(c.value, list) else tuple(c.value)
                        for c in controls.values())  # fmt: skip
            if key not in seen:
                seen.add(key)
                steps.append(dt)
    if not steps:
        return {"name": name, "build_s": build, "steps": 0}
    return {
        "name": name,
        "build_s": build,
        "steps": len(steps),
        "median_ms": 1000 * statistics.median(steps),
        "worst_ms": 1000 * max(steps),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only widgets whose name contains one of these")
    parser.add_argument("--core", type=int, default=0, help="the CPU core to run on (default 0)")
    parser.add_argument("--pace", type=float, default=0.0, metavar="S",
                        help="seconds a student looks after each step; turns drawing ahead on "
                        "(default 0: cold, every step drawn when asked)")  # fmt: skip
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {args.core})
        except OSError as e:
            print(f"--core {args.core}: cannot pin to it ({e})", file=sys.stderr)
            return 2
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import matplotlib

    matplotlib.use("Agg")
    import torch

    torch.set_num_threads(1)
    from lecturekit.viz.widgets import draw_ahead
    from lecturekit_publish import figures

    if args.pace < 0:
        print(f"--pace must be >= 0 seconds, got {args.pace}", file=sys.stderr)
        return 2
    draw_ahead(args.pace > 0)
    names = [n for n in figures.widget_names() if not args.names or any(s in n for s in args.names)]
    if not names:
        print(f"no registered widget matches {args.names}: {figures.widget_names()}",
              file=sys.stderr)  # fmt: skip
        return 2
    mode = f"paced {args.pace:g} s, drawing ahead" if args.pace else "cold"
    print(f"# widget redraw times ({mode}), core {args.core}, torch threads 1, "
          f"{platform.machine()}, load {os.getloadavg()[0]:.1f}")  # fmt: skip
    print("| widget | lecture | steps | median ms | worst ms | build s |")
    print("|---|---|---:|---:|---:|---:|")
    rows = []
    for name in names:
        row = measure(name, args.pace)
        row["lecture"] = figures.widget_spec(name).lecture
        rows.append(row)
        if row["steps"]:
            print(f"| {name} | {row['lecture']} | {row['steps']} | {row['median_ms']:.0f} | "
                  f"{row['worst_ms']:.0f} | {row['build_s']:.1f} |", flush=True)  # fmt: skip
        else:
            print(f"| {name} | {row['lecture']} | 0 | - | - | {row['build_s']:.1f} |", flush=True)
    timed = [r for r in rows if r["steps"]]
    medians = [r["median_ms"] for r in timed]
    over = [r["name"] for r in timed if r["median_ms"] > 100 or r["worst_ms"] > 250]
    print(f"\nmedian of the widgets' medians {statistics.median(medians):.0f} ms; "
          f"worst step {max(r['worst_ms'] for r in timed):.0f} ms; "
          f"over 100 ms median or 250 ms worst: {len(over)} of {len(timed)}"
          + (f" ({', '.join(over)})" if over else ""))  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
