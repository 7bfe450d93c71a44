#pragma once
// The matrices the format benchmark runs on: the FVM Laplacian of a box, a polyMesh or a Gmsh
// mesh (discretisation layer), a Matrix Market file, or a synthetic polyhedral-like pattern.

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

#include "linalg/ldu_matrix.hpp"

namespace fvmmini::bench {

struct BenchMatrix {
  LduMatrix matrix;
  std::string source;  ///< where the pattern came from ("box 200^3", a path, ...)
  std::string values;  ///< how the coefficients were made
};

/// The FVM Laplacian (gamma 1) of an n x n x n unit box, fixedValue 0 on every patch.
BenchMatrix box_laplacian(int n);

/// The same on a box of cells[0] x cells[1] x cells[2] cells (cells[2] = 1: a 2-D pattern).
BenchMatrix box_laplacian(const std::array<label, 3>& cells);

/// The pressure matrix of the n^3 lid-driven cavity (cases/cavity3d.yaml): the FVM Laplacian
/// with zeroGradient on every wall and cell 0 weakly pinned as the projection step pins its
/// reference cell (discretisation/incompressible/flow_operators.hpp).
BenchMatrix cavity_pressure(int n);

/// The momentum matrix of the n^3 lid-driven cavity (cases/cavity3d.yaml, Re 100): nu L + V/dt
/// with nu 0.01, fixedValue on every wall (velocity given there), and the step maxCo 0.5 picks
/// with the lid's speed 1, dt = 0.5 h. The three velocity components share it.
BenchMatrix cavity_momentum(int n);

/// The FVM Laplacian of a mesh read from an OpenFOAM case / polyMesh directory or a Gmsh file,
/// fixedValue 0 on every patch that is not of type empty.
BenchMatrix mesh_laplacian(const std::filesystem::path& path, bool gmsh);

/// A symmetric Matrix Market file (coordinate real; "symmetric" or "general" with a symmetric
/// pattern: the upper triangle is used). @throws std::runtime_error naming the file and line
BenchMatrix matrix_market(const std::filesystem::path& path);

/// A polyhedral-like pattern on an n^3 lattice: the 6 face neighbours of each cell plus each of
/// its 12 edge-diagonal neighbours with probability 1/2 (decided per pair, so symmetric): rows
/// of 7 to 19 nonzeros, mean about 13 inside. Unit-coefficient graph Laplacian plus `shift` on
/// the diagonal. In lattice order; the benchmark's "random+rcm" ordering emulates an unstructured
/// mesh renumbered by RCM.
BenchMatrix polyhedral_like(int n, double shift, std::uint64_t seed);

}  // namespace fvmmini::bench
