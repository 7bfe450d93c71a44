#!/usr/bin/env python3
"""Plot fvmmini-bench JSON results to PNG, one row of panels per JSON file: SpMV effective
bandwidth (% of the measured copy bandwidth) and CG time per iteration over its floor, per format,
grouped by ordering; then a panel for each option the run measured:

  --mixed      SpMV and CG time through the float32 twin over double's
  --block K    the SpMV of K vectors at once over K single SpMVs
  --l2-window  CG time per iteration with the window over without it
  auto keys    each setting the tuner timed (ms), the chosen one marked

    tools/plot_bench.py bench-box.json [mixed-box200.json tune-poly200.json ...] -o bench.png
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


def nested(r, *keys):
    """r[k0][k1]... or None where a key is missing."""
    for k in keys:
        if not isinstance(r, dict) or k not in r:
            return None
        r = r[k]
    return r


def grouped_bars(ax, rows, value, ylabel, title, reference_line=None):
    rows = [r for r in rows if value(r) is not None]
    orderings = list(dict.fromkeys(r["ordering"] for r in rows))
    formats = list(dict.fromkeys(format_label(r) for r in rows))
    width = 0.8 / max(1, len(formats))
    for k, fmt in enumerate(formats):
        xs, ys = [], []
        for i, ordering in enumerate(orderings):
            for r in rows:
                if format_label(r) == fmt and r["ordering"] == ordering:
                    xs.append(i + (k - (len(formats) - 1) / 2) * width)
                    ys.append(value(r))
        ax.bar(xs, ys, width, label=fmt, color=plt.cm.tab20(k % 20))  # tab20: up to 20 formats apart
    ax.set_xticks(range(len(orderings)))
    ax.set_xticklabels(orderings)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    if reference_line is not None:
        ax.axhline(reference_line, color="k", linewidth=0.8, linestyle="--")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, frameon=False)


def tuning_panel(ax, rows, title):
    """Each tuned row's settings as the tuner timed them, its choice in a darker shade."""
    tuned = [r for r in rows if "tuning" in r]
    x = 0
    ticks, labels = [], []
    for k, r in enumerate(tuned):
        trials = r["tuning"]["trials"]
        chosen = r["tuning"]["chosen"]
        colour = plt.cm.tab10(k % 10)
        for t in trials:
            ax.bar(x, t["spmv_ms"], 0.8, color=colour, alpha=1.0 if t["parameters"] == chosen else 0.35)
            x += 1
        ticks.append(x - len(trials) / 2 - 0.5)
        labels.append(f"{r['format']} / {r['ordering']}\n{len(trials)} settings, {r['tuning']['seconds']:.1f} s")
        x += 1
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("SpMV ms as the tuner timed it (chosen: dark)")
    ax.set_title(title, fontsize=9)


def option_panels(rows):
    """(kind, value function, y label, reference line) for each option present in the rows."""
    panels = []
    if any(nested(r, "spmv", "mixed") for r in rows):
        panels.append(("bars", lambda r: nested(r, "spmv", "mixed", "ratio_to_double"),
                       "mixed: SpMV time / double's", 0.65))
        panels.append(("bars", lambda r: nested(r, "cg", "mixed", "time_ratio_to_double"),
                       "mixed: CG time to solution / double's", 0.80))
    if any(nested(r, "spmv", "block") for r in rows):
        k = next(nested(r, "spmv", "block", "vectors") for r in rows if nested(r, "spmv", "block"))
        panels.append(("bars", lambda r: nested(r, "spmv", "block", "ratio_to_single"),
                       f"SpMV of {k} vectors / {k} single SpMVs", 1.0))
    if any(nested(r, "cg", "l2_window") for r in rows):
        def window_ratio(r):
            with_window = nested(r, "cg", "l2_window", "ms_per_iteration")
            without = nested(r, "cg", "ms_per_iteration")
            return with_window / without if with_window and without else None
        panels.append(("bars", window_ratio, "L2 window: CG ms/iteration / without", 1.0))
    if any("tuning" in r for r in rows):
        panels.append(("tuning", None, None, None))
    return panels


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="fvmmini-bench --json outputs")
    parser.add_argument("-o", "--output", default="bench.png", help="PNG file to write")
    args = parser.parse_args()

    reports = []
    for path in args.json:
        with open(path) as f:
            reports.append(json.load(f))
    layouts = []
    for report in reports:
        rows = completed_rows(report)
        base = [p for p in (("bars", lambda r: nested(r, "spmv", "pct_copy_bandwidth"),
                             "SpMV effective bandwidth, % of copy", 100.0),
                            ("bars", lambda r: nested(r, "cg", "ratio_to_floor"), "CG time per iteration / floor", 1.0))
                if any(p[1](r) is not None for r in rows)]
        layouts.append((report, rows, base + option_panels(rows)))
    columns = max([len(panels) for _, _, panels in layouts] + [1])
    fig, axes = plt.subplots(len(reports), columns, figsize=(6 * columns, 4.6 * len(reports)), squeeze=False)
    for row_axes, (report, rows, panels) in zip(axes, layouts):
        for ax in row_axes[len(panels):]:
            ax.axis("off")
        if not rows:
            print(f"no completed cuda results in {report['matrix']['source']}", file=sys.stderr)
            continue
        device = (report.get("device") or {}).get("name", "no device")
        copy = report.get("copy_bandwidth", {}).get("GBs", 0.0)
        matrix = report["matrix"]
        source = matrix["source"].split(" (")[0]  # the name, without the generator's details
        title = (f"{source}: {matrix['n_rows']} rows, {matrix['nnz']} nnz\n{device}, copy {copy:.0f} GB/s, "
                 f"revision {report.get('git_revision', '?')}")
        for ax, (kind, value, ylabel, line) in zip(row_axes, panels):
            if kind == "tuning":
                tuning_panel(ax, rows, title)
            else:
                grouped_bars(ax, rows, value, ylabel, title, reference_line=line)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
