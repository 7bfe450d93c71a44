#!/usr/bin/env python3
"""Plot fvmmini-solve-bench JSON results to PNG: time to solution by method (preconditioner and
ordering), one panel per matrix and relative tolerance; each bar is labelled with its iterations.
The preconditioner's set-up (once per mesh) is drawn separately, to the right of the solve.
--sweep plots iterations and time to solution against the matrix's rows instead (one line per
method, the reports being one matrix family at growing sizes); --markdown prints the results as
Markdown tables (one per matrix and tolerance, then DIC's triangular solves alone where the report
has them) and plots nothing.

    tools/plot_solve_bench.py box.json [cavity.json ...] -o time-to-solution.png
    tools/plot_solve_bench.py --sweep box64.json box128.json box200.json -o sweep.png
    tools/plot_solve_bench.py --markdown box.json cavity.json
"""
import argparse
import json
import sys


def pyplot():
    """matplotlib, only where something is plotted (--markdown needs none)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def panels(reports):
    """(title, rows) per matrix and tolerance, methods in the order they ran."""
    out = []
    for report in reports:
        done = [r for r in report["results"] if "solve_ms" in r]
        for tol in dict.fromkeys(r["tolerance"] for r in done):
            rows = [r for r in done if r["tolerance"] == tol]
            out.append((f"{report['matrix']['source']}, {report['format']}, rel {tol:g}", rows))
    return out


def markdown(boxes):
    for title, rows in boxes:
        print(f"\n{title}\n")
        print("| method | ordering | iterations | ms / it | solve ms | host vectors ms | set-up ms (preconditioner) "
              "| refresh ms |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            its = f"{r['iterations']}" + ("" if r["converged"] else " (not converged)")
            host = f"{r['host_vectors_solve_ms']:.3g}" if "host_vectors_solve_ms" in r else ""
            print(f"| {r['method']} | {r['ordering']} | {its} | {r['ms_per_iteration']:.3g} | {r['solve_ms']:.3g} | "
                  f"{host} | {r['setup_ms']:.0f} ({r['preconditioner_setup_ms']:.0f}) | {r.get('refresh_ms', 0.0):.3g} |")


def triangular_markdown(reports):
    """DIC's triangular solves alone (--triangular): analysis, layout and solve by ordering and method."""
    for report in reports:
        rows = report.get("triangular", [])
        if not rows:
            continue
        print(f"\n{report['matrix']['source']}: forward + backward, {report['device']}\n")
        print("| ordering | levels | solve | analysis ms | layout ms | solve ms (min, max) |")
        print("|---|---:|---|---:|---:|---|")
        for r in rows:
            label = r.get("launch", r["solve"]) + (" (automatic)" if r.get("automatic") else "")
            print(f"| {r['ordering']} | {r['levels']} | {label} | {r['analysis_ms']:.3g} | {r.get('layout_ms', 0.0):.3g} | "
                  f"{r['solve_ms']:.3g} ({r['solve_min_ms']:.3g}, {r['solve_max_ms']:.3g}) |")


def sweep(reports, output):
    """Iterations and time to solution against rows, one line per method and tolerance."""
    lines = {}
    for report in sorted(reports, key=lambda r: r["matrix"]["rows"]):
        for r in report["results"]:
            if "solve_ms" in r:
                lines.setdefault(f"{r['method']}, rel {r['tolerance']:g}", []).append((report["matrix"]["rows"], r))
    fig, (its_ax, ms_ax) = pyplot().subplots(1, 2, figsize=(11, 4))
    for label, points in lines.items():
        rows = [n for n, _ in points]
        its_ax.plot(rows, [r["iterations"] for _, r in points], marker="o", label=label)
        ms_ax.plot(rows, [r["solve_ms"] for _, r in points], marker="o", label=label)
    from matplotlib.ticker import NullFormatter

    for ax, what in ((its_ax, "iterations"), (ms_ax, "time to solution (ms)")):
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # the minor labels of a short log axis overlap
        ax.set_xlabel("rows")
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
    ms_ax.set_yscale("log")
    its_ax.legend(fontsize=8)
    sources = ", ".join(r["matrix"]["source"] for r in sorted(reports, key=lambda r: r["matrix"]["rows"]))
    fig.suptitle(f"{sources} — {reports[0]['device']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    print(f"plot_solve_bench: wrote {output}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="fvmmini-solve-bench --json outputs")
    parser.add_argument("-o", "--output", default="time-to-solution.png")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--sweep", action="store_true", help="iterations and time against rows")
    mode.add_argument("--markdown", action="store_true", help="print Markdown tables, plot nothing")
    args = parser.parse_args(argv)
    reports = []
    for path in args.json:
        with open(path) as f:
            reports.append(json.load(f))
    boxes = panels(reports)
    if not boxes:
        sys.exit("plot_solve_bench: no completed solves in " + ", ".join(args.json))
    if args.markdown:
        markdown(boxes)
        triangular_markdown(reports)
        return
    if args.sweep:
        sweep(reports, args.output)
        return
    fig, axes = pyplot().subplots(len(boxes), 2, figsize=(12, 0.45 * max(len(r) for _, r in boxes) * len(boxes) + 1.5),
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
