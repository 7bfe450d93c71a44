// A preconditioner as the benches name it on their command lines (fvmmini-solve-bench's
// --methods, fvmmini-dist-bench's --preconditioner): the case file's name, with GAMG's keys
// appended, so that one run can sweep them.
#pragma once

#include <string>

#include "linalg/solver_settings.hpp"

namespace fvmmini::bench {

/// What set_preconditioner reads, for --help.
inline constexpr const char* preconditioner_method_syntax =
    "CG (none), diagonal, DIC, DIC-cusparse (cusparseSpSV), mcsgs, mcsgsN (N sweeps), "
    "GAMG[/jacobi|/mcsgs][/algebraicPair|/parallelPair][/mergeN][/sweepsN][/vN][/coarsestN][/scaleX] (smoother, "
    "agglomerator, mergeLevels, nPre/PostSweeps, nVcycles, nCellsInCoarsestLevel, correctionScale)";

/// s's preconditioner (and DIC's triangular solve, mcsgs's sweeps, GAMG's keys) from `name`.
/// @throws std::invalid_argument naming the part it does not know, or a number out of its key's range
void set_preconditioner(const std::string& name, SolverSettings& s);

/// For a command-line check: the error set_preconditioner gives for `name`, or empty.
std::string preconditioner_method_error(const std::string& name);

}  // namespace fvmmini::bench
