"""Compare sampled cavity centrelines with Ghia, Ghia & Shin (1982).

Used by tools/validate_cavity; importable on its own (no third-party modules needed
for the comparison, matplotlib only for the plot).
"""

import csv
import pathlib

PROJECT = pathlib.Path(__file__).resolve().parent.parent
GHIA_CSV = PROJECT / "tests" / "fixtures" / "validation" / "ghia1982.csv"

# Ghia's profile -> (sample line, velocity column) in the fvmmini centreline CSV.
PROFILES = {"u_at_x0.5": ("vertical", "Ux"), "v_at_y0.5": ("horizontal", "Uy")}


def read_ghia(reynolds, path=GHIA_CSV):
    """{profile: [(coordinate, value, suspect), ...]} sorted by coordinate, for Re = reynolds.
    The suspect flag marks one Re = 400 value (see the data's README), so it applies at Re = 400 only."""
    column = f"re{int(reynolds)}"
    table = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if column not in row:
                raise ValueError(f"{path}: no column {column} (Re {reynolds} is not tabulated)")
            table.setdefault(row["profile"], []).append(
                (float(row["coordinate"]), float(row[column]), row["suspect"] == "1" and column == "re400"))
    for points in table.values():
        points.sort()
    return table


def read_centrelines(path):
    """{line: ([coordinate...], {column: [value...]})} from an fvmmini centreline CSV."""
    lines = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            coords, values = lines.setdefault(row["line"], ([], {}))
            coords.append(float(row["coordinate"]))
            for key in ("Ux", "Uy", "Uz", "p"):
                values.setdefault(key, []).append(float(row[key]))
    return lines


def interpolate(xs, ys, x):
    """Piecewise-linear interpolation of (xs, ys) at x (xs increasing)."""
    if x <= xs[0]:
        return ys[0]
    for i in range(1, len(xs)):
        if x <= xs[i]:
            t = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
            return ys[i - 1] + t * (ys[i] - ys[i - 1])
    return ys[-1]


def compare(centrelines, ghia):
    """Per profile: rows (coordinate, ghia, fvmmini, |difference|, suspect) over Ghia's interior
    points (the wall points 0 and 1 are left out), and the largest deviation over non-suspect points."""
    result = {}
    for profile, (line, column) in PROFILES.items():
        if line not in centrelines:
            raise ValueError(f"the centreline file has no line '{line}'")
        coords, values = centrelines[line]
        lo, hi = min(coords), max(coords)
        rows = []
        for coordinate, reference, suspect in ghia[profile]:
            # --- Ghia's coordinates are on the unit square; map onto the sampled line's extent
            x = lo + coordinate * (hi - lo)
            if coordinate <= 0.0 or coordinate >= 1.0:
                continue
            value = interpolate(coords, values[column], x)
            rows.append((coordinate, reference, value, abs(value - reference), suspect))
        worst = max((r[3] for r in rows if not r[4]), default=0.0)
        result[profile] = (rows, worst)
    return result
