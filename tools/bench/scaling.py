#!/usr/bin/env python3
"""Measures how the hostile shapes' costs grow with their size (issue 36, docs/limits.md).

Runs the micro benchmark's scaling families, every size in one process with the repetitions
interleaved at random (so that a slow phase of a loaded machine hits all sizes alike), and
prints, for each doubling of the size, the ratio of the median CPU times. The bound stated in
docs/limits.md is a ratio of at most 2.5. A report, not a test: timing ratios on a shared
machine are for a person to read with the load next to them (CI counts work instead:
tests/lint/hostile_work_test.cc).

  tools/bench/scaling.py BUILD_DIR [--repetitions N] [--filter REGEX]

BUILD_DIR is a build configured with -DSHAPELINT_BENCH=ON (Release).
"""

import argparse
import json
import os
import subprocess
import sys

# The families whose argument doubles from one size to the next.
FAMILIES = [
    "BM_InferNestedLoops",
    "BM_PinSearchIndependentDims",
    "BM_LintIndependentDims",
    "BM_LintFoldedFromSignature",
]


def load_average():
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def run(bench, families, repetitions):
    pattern = "^(" + "|".join(families) + ")/"
    out = subprocess.run(
        [
            bench,
            f"--benchmark_filter={pattern}",
            f"--benchmark_repetitions={repetitions}",
            "--benchmark_enable_random_interleaving=true",
            "--benchmark_report_aggregates_only=true",
            "--benchmark_format=json",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    medians = {}  # family -> {size: cpu time in ms}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        family, size = b["run_name"].split("/")[:2]
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        medians.setdefault(family, {})[int(size)] = b["cpu_time"] * scale
    return medians


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--filter", default="", help="only the families matching this substring")
    args = parser.parse_args()
    bench = os.path.join(args.build_dir, "shapelint_micro_bench")
    if not os.access(bench, os.X_OK):
        sys.exit(f"{bench} missing: configure the build with -DSHAPELINT_BENCH=ON")
    families = [f for f in FAMILIES if args.filter in f]
    if not families:
        sys.exit(f"no family matches {args.filter!r}: {', '.join(FAMILIES)}")
    before = load_average()
    medians = run(bench, families, args.repetitions)
    print(f"load average before {before}, after {load_average()}; "
          f"CPU time, median of {args.repetitions} interleaved repetitions")
    worst = 0.0
    for family in families:
        sizes = sorted(medians.get(family, {}))
        times = ", ".join(f"{s}: {medians[family][s]:.3g} ms" for s in sizes)
        ratios = []
        for a, b in zip(sizes, sizes[1:]):
            if b == 2 * a:
                ratios.append(medians[family][b] / medians[family][a])
        worst = max([worst] + ratios)
        print(f"{family}: {times}; ratios per doubling: "
              + ", ".join(f"{r:.2f}" for r in ratios))
    print(f"largest ratio {worst:.2f} (bound 2.5)")


if __name__ == "__main__":
    main()
