#!/usr/bin/env python3
"""Plot fvmmini-solve-bench JSON results to PNG: time to solution by method (preconditioner and
ordering), one panel per matrix and relative tolerance; each bar is labelled with its iterations.
The preconditioner's set-up (once per mesh) is drawn separately, to the right of the solve.

    tools/plot_solve_bench.py box.json [cavity.json ...] -o time-to-solution.png
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def panels(reports):
    """(title, rows) per matrix and tolerance, methods in the order they ran."""
    out = []
    for report in reports:
        done = [r for r in report["results"] if "solve_ms" in r]
        for tol in dict.fromkeys(r["tolerance"] for r in done):
            rows = [r for r in done if r["tolerance"] == tol]
            out.append((f"{report['matrix']['source']}, {report['format']}, rel {tol:g}", rows))
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="fvmmini-solve-bench --json outputs")
    parser.add_argument("-o", "--output", default="time-to-solution.png")
    args = parser.parse_args(argv)
    reports = []
    for path in args.json:
        with open(path) as f:
            reports.append(json.load(f))
    boxes = panels(reports)
    if not boxes:
        sys.exit("plot_solve_bench: no completed solves in " + ", ".join(args.json))
    fig, axes = plt.subplots(len(boxes), 2, figsize=(12, 0.45 * max(len(r) for _, r in boxes) * len(boxes) + 1.5),
                             squeeze=False, gridspec_kw={"width_ratios": [3, 1]})
    for (title, rows), (solve_ax, setup_ax) in zip(boxes, axes):
        labels = [r["method"] for r in rows]
        ys = range(len(rows))
        solve = [r["solve_ms"] for r in rows]
        colours = ["tab:grey" if r["preconditioner"] == "none" else "tab:blue" for r in rows]
        solve_ax.barh(ys, solve, color=colours)
        for y, r in zip(ys, rows):
            mark = "" if r["converged"] else " (not converged)"
            solve_ax.text(r["solve_ms"], y, f" {r['iterations']} its{mark}", va="center", fontsize=8)
        solve_ax.set_yticks(list(ys))
        solve_ax.set_yticklabels(labels)
        solve_ax.invert_yaxis()
        solve_ax.set_xlabel("time to solution (ms)")
        solve_ax.set_title(title + f" — {reports[0]['device']}", fontsize=9)
        solve_ax.set_xlim(0, 1.25 * max(solve))
        setup_ax.barh(ys, [r["preconditioner_setup_ms"] for r in rows], color="tab:orange")
        setup_ax.set_yticks(list(ys))
        setup_ax.set_yticklabels([])
        setup_ax.invert_yaxis()
        setup_ax.set_xlabel("preconditioner set-up (ms)")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"plot_solve_bench: wrote {args.output}")


if __name__ == "__main__":
    main(sys.argv[1:])
