#pragma once
// The preconditioner units listed in solvers/CMakeLists.txt (FVMMINI_PRECONDITIONER_UNITS), in
// that order, and the questions asked of them by name.

#include <string>
#include <utility>
#include <vector>

#include "linalg/solver_settings.hpp"
#include "solvers/preconditioners/preconditioner_unit.hpp"

namespace fvmmini {

/// Every unit, checked once: names and aliases unique, set-up present where the CG applies it.
const std::vector<PreconditionerUnit>& preconditioner_table();

/// The unit of a name or an alias. @throws std::invalid_argument for an unknown one, listing
/// the known names
const PreconditionerUnit& find_preconditioner(const std::string& name);

/// The units' names, in table order: none, diagonal, DIC, mcsgs, GAMG.
std::vector<std::string> preconditioner_names();
/// The words a case may write: the names, then the aliases (jacobi).
std::vector<std::string> preconditioner_words();

/// The unit's name for a name or an alias (jacobi -> diagonal). @throws as find_preconditioner
std::string parse_preconditioner(const std::string& word);

/// How the CG meets the preconditioner of `settings`.
CgStep cg_step(const SolverSettings& settings);

/// The solve line's solver name as OpenFOAM writes it, with the format: the Krylov method's name
/// where the CG has no preconditioner step ("CG[csr]", "PBiCGStab[csr]"), else the
/// preconditioner's name, P and the method's, a method named P... without another P:
/// "DICPCG[staircase]", "diagonalPCG[csr]", "diagonalPBiCGStab[csr]".
std::string solver_name(const SolverSettings& settings, const std::string& format);

/// How the preconditioner meets the ranks, for a solver's describe line ("GAMG coupled across the
/// ranks", or "preconditioner on each rank's block").
std::string preconditioner_across_ranks(const SolverSettings& settings, int ranks);

/// The solvers.<field> keys the units read, each with the names of the units that read it, in
/// table order (the schema applies a key only under those).
std::vector<std::pair<std::string, std::vector<std::string>>> preconditioner_keys();

}  // namespace fvmmini
