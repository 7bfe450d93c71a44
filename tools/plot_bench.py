#!/usr/bin/env python3
"""Plot fvmmini-bench JSON results to PNG: SpMV effective bandwidth (% of the measured copy
bandwidth) and CG time per iteration over its floor, per format, grouped by ordering.

    tools/plot_bench.py bench-box.json [bench-poly.json ...] -o bench.png
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def completed_rows(report):
    return [r for r in report["results"] if r.get("completed") and r.get("backend") == "cuda"]


def format_label(r):
    """The format and its parameters that differ from the defaults (fvmmini-bench's "variant")."""
    variant = r.get("variant", "")
    return f"{r['format']} ({variant})" if variant else r["format"]


def grouped_bars(ax, rows, value, ylabel, title, reference_line=None):
    orderings = list(dict.fromkeys(r["ordering"] for r in rows))
    formats = list(dict.fromkeys(format_label(r) for r in rows))
    width = 0.8 / max(1, len(formats))
    for k, fmt in enumerate(formats):
        xs, ys = [], []
        for i, ordering in enumerate(orderings):
            for r in rows:
                v = value(r)
                if format_label(r) == fmt and r["ordering"] == ordering and v is not None:
                    xs.append(i + (k - (len(formats) - 1) / 2) * width)
                    ys.append(v)
        ax.bar(xs, ys, width, label=fmt, color=plt.cm.tab20(k % 20))  # tab20: up to 20 formats apart
    ax.set_xticks(range(len(orderings)))
    ax.set_xticklabels(orderings)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    if reference_line is not None:
        ax.axhline(reference_line, color="k", linewidth=0.8, linestyle="--")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, frameon=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="fvmmini-bench --json outputs")
    parser.add_argument("-o", "--output", default="bench.png", help="PNG file to write")
    args = parser.parse_args()

    reports = []
    for path in args.json:
        with open(path) as f:
            reports.append(json.load(f))
    fig, axes = plt.subplots(len(reports), 2, figsize=(12, 4.6 * len(reports)), squeeze=False)
    for row_axes, report in zip(axes, reports):
        rows = completed_rows(report)
        if not rows:
            print(f"no completed cuda results in {report['matrix']['source']}", file=sys.stderr)
            continue
        device = (report.get("device") or {}).get("name", "no device")
        copy = report.get("copy_bandwidth", {}).get("GBs", 0.0)
        matrix = report["matrix"]
        source = matrix["source"].split(" (")[0]  # the name, without the generator's details
        title = f"{source}: {matrix['n_rows']} rows, {matrix['nnz']} nnz\n{device}, copy {copy:.0f} GB/s"
        grouped_bars(row_axes[0], rows, lambda r: r["spmv"].get("pct_copy_bandwidth"),
                     "SpMV effective bandwidth, % of copy", title, reference_line=100.0)
        grouped_bars(row_axes[1], rows, lambda r: r.get("cg", {}).get("ratio_to_floor"),
                     "CG time per iteration / floor", title, reference_line=1.0)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
