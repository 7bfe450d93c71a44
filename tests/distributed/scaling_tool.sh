#!/usr/bin/env bash
# tools/scaling --step end to end on a 12^3 cavity: the slab split set per rank count ({ranks}),
# one rank count a call, then both tabulated from the kept summaries (--reuse) without the
# two-rank run again; the weak series takes the one-rank run; --weak-side; the CG's --method. Usage: scaling_tool.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
root=$1 build=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {
  python3 "$root/tools/scaling" --step "$root/cases/cavity3d-hpc-8M.yaml" --box 12 --kinds strong --end-time 0.001 \
    --preconditioner GAMG --oversubscribe --set decomposition.method=simple --set 'decomposition.n=[{ranks},1,1]' \
    --build "$build" --out "$out" "$@"
}
fail() { echo "scaling tool: $1"; cat "$out"/*.txt; exit 1; }
run --ranks 2 > "$out/first.txt" 2>&1 || fail "the two-rank run failed"
grep -q "Decomposition: simple into 2 ranks" "$out/strong-step-2.log" || fail "no slab split into 2"
run --ranks 1,2 --reuse > "$out/both.txt" 2>&1 || fail "the tabulation failed"
grep -q "reusing .*strong-step-2/summary.json" "$out/both.txt" || fail "the two-rank run was made again"
grep -q "mpirun -np 1 " "$out/both.txt" || fail "the one-rank run was not made"
grep -q "^OMP_NUM_THREADS=1 mpirun -np 1 " "$out/both.txt" || fail "a reference rank did not run one OpenMP thread"
[ "$(grep -c '^step GAMG reference *strong' "$out/both.txt")" = 2 ] || fail "not a row for each rank count"
# the weak series starts from the one-rank run on the same box: strong's, not made again
run --ranks 1 --kinds weak --weak-box 12 --reuse > "$out/weak.txt" 2>&1 || fail "the weak tabulation failed"
grep -q "reusing .*strong-step-1/summary.json" "$out/weak.txt" || fail "the weak series made its one-rank run again"
[ "$(grep -c '^step GAMG reference *weak' "$out/weak.txt")" = 1 ] || fail "no weak row"
# the weak boxes' sides (gpu-check asks for them): a multiple of the ranks, about 200^3 a rank
[ "$(python3 "$root/tools/scaling" --weak-side 200 4)" = 316 ] || fail "--weak-side 200 4 is not 316"
[ "$(python3 "$root/tools/scaling" --weak-side 200 3)" = 288 ] || fail "--weak-side 200 3 is not 288"
# the CG's series (fvmmini-dist-bench) split as asked: slabs of whole planes with --method simple
python3 "$root/tools/scaling" --ranks 2 --box 12 --kinds strong --method simple --oversubscribe --build "$build" \
  --out "$out/cg" > "$out/cg.txt" 2>&1 || fail "the CG's two-rank run failed"
grep -q '"method": "simple"' "$out/cg/strong-2.json" || fail "the CG's run was not split into slabs"
echo "scaling tool: two runs tabulated, the weak series from strong's one-rank run"
