#pragma once
// The icoFoam cavity tutorial's case directory (OpenFOAM v1912), written with its sizes, its
// convection scheme and its tolerances as parameters: what the icoFoam parity test runs with both
// codes and what the --foam-case tests map; the cases whose icoFoam fields the fixtures keep, and
// a reader of those fields.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace fvmmini::testing {

/// The cavity of the icoFoam tutorial with its sizes, scheme and tolerances as parameters.
struct IcoFoamCase {
  int nx, ny, nz;
  bool two_dimensional;    ///< front and back empty (else walls)
  std::string divergence;  ///< fvSchemes' div(phi,U): "Gauss linear", "Gauss linearUpwind grad(U)", "Gauss upwind"
  double delta_t;
  int steps = 20;
  double u_tolerance, p_tolerance, p_rel_tol;
  double skew = 0.0;  ///< the lid's vertices moved this far in x (blockMesh units): non-orthogonal cells
  std::string sn_grad = "orthogonal";  ///< laplacianSchemes' Gauss linear <sn_grad>, snGradSchemes'
  int n_non_orthogonal_correctors = 0;
};

/// Writes `text` to `path`, its folders made.
inline void write_case_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

/// The icoFoam cavity tutorial's dictionaries with the case's sizes, schemes and tolerances.
inline void write_icofoam_case(const std::filesystem::path& dir, const IcoFoamCase& c) {
  const auto dict = [](const std::string& name) {
    return "FoamFile { version 2.0; format ascii; class dictionary; object " + name + "; }\n";
  };
  const double depth = c.two_dimensional ? 0.1 : 1.0;
  write_case_file(dir / "system/blockMeshDict",
             dict("blockMeshDict") +
                 fmt::format("convertToMeters 0.1;\nvertices ((0 0 0) (1 0 0) ({6} 1 0) ({7} 1 0) (0 0 {0}) (1 0 {0}) "
                             "({6} 1 {0}) ({7} 1 {0}));\nblocks (hex (0 1 2 3 4 5 6 7) ({1} {2} {3}) simpleGrading "
                             "(1 1 1));\nedges ();\nboundary (\n movingWall {{ type wall; faces ((3 7 6 2)); }}\n"
                             " fixedWalls {{ type wall; faces ((0 4 7 3) (2 6 5 1) (1 5 4 0){4}); }}\n{5});\n",
                             depth, c.nx, c.ny, c.nz, c.two_dimensional ? "" : " (0 3 2 1) (4 5 6 7)",
                             c.two_dimensional ? " frontAndBack { type empty; faces ((0 3 2 1) (4 5 6 7)); }\n" : "",
                             1.0 + c.skew, c.skew));
  write_case_file(dir / "system/controlDict",
             dict("controlDict") + fmt::format("application icoFoam; startFrom startTime; startTime 0; stopAt "
                                               "endTime; endTime {0:.6g}; deltaT {1}; writeControl timeStep; "
                                               "writeInterval {2}; writeFormat ascii; writePrecision 17; "
                                               "timeFormat general; timePrecision 6;\n",
                                               c.delta_t * c.steps, c.delta_t, c.steps));
  write_case_file(dir / "system/fvSchemes",
             dict("fvSchemes") + "ddtSchemes { default Euler; }\ngradSchemes { default Gauss linear; }\n"
                                 "divSchemes { default none; div(phi,U) " + c.divergence + "; }\n"
                                 "laplacianSchemes { default Gauss linear " + c.sn_grad + "; }\n"
                                 "interpolationSchemes { default linear; }\nsnGradSchemes { default " + c.sn_grad +
                                 "; }\n");
  write_case_file(dir / "system/fvSolution",
             dict("fvSolution") +
                 fmt::format("solvers {{\n p {{ solver PCG; preconditioner DIC; tolerance {0}; relTol {1}; }}\n"
                             " pFinal {{ $p; relTol 0; }}\n U {{ solver smoothSolver; smoother symGaussSeidel; "
                             "tolerance {2}; relTol 0; }}\n}}\nPISO {{ nCorrectors 2; nNonOrthogonalCorrectors {3}; "
                             "pRefCell 0; pRefValue 0; }}\n",
                             c.p_tolerance, c.p_rel_tol, c.u_tolerance, c.n_non_orthogonal_correctors));
  write_case_file(dir / "constant/transportProperties", dict("transportProperties") + "nu [0 2 -1 0 0 0 0] 0.01;\n");
  const std::string front_and_back = c.two_dimensional ? " frontAndBack { type empty; }\n" : "";
  write_case_file(dir / "0/U", "FoamFile { version 2.0; format ascii; class volVectorField; object U; }\n"
                          "dimensions [0 1 -1 0 0 0 0];\ninternalField uniform (0 0 0);\nboundaryField {\n"
                          " movingWall { type fixedValue; value uniform (1 0 0); }\n fixedWalls { type noSlip; }\n" +
                              front_and_back + "}\n");
  write_case_file(dir / "0/p", "FoamFile { version 2.0; format ascii; class volScalarField; object p; }\n"
                          "dimensions [0 2 -2 0 0 0 0];\ninternalField uniform 0;\nboundaryField {\n"
                          " movingWall { type zeroGradient; }\n fixedWalls { type zeroGradient; }\n" +
                              front_and_back + "}\n");
}

/// The values of an OpenFOAM field file's internalField (ASCII, nonuniform): n cells of `width`
/// components each, cell by cell. Throws std::runtime_error naming `what` where they are not there.
inline std::vector<double> internal_field_values(const std::string& text, int width, const std::string& what) {
  const std::size_t at = text.find("internalField");
  const std::size_t open = at == std::string::npos ? at : text.find('>', at);
  if (open == std::string::npos) throw std::runtime_error(what + ": no nonuniform internalField");
  std::istringstream body(text.substr(open + 1));
  std::size_t n = 0;
  body >> n;
  std::vector<double> values;
  std::string token;
  while (values.size() < n * width && body >> token) {
    std::erase(token, '(');
    std::erase(token, ')');
    if (!token.empty()) values.push_back(std::stod(token));
  }
  if (n == 0 || values.size() != n * width)
    throw std::runtime_error(what + ": " + std::to_string(values.size()) + " values of internalField, not " +
                             std::to_string(n * width));
  return values;
}

/// A case whose icoFoam fields at its end time the tests keep in tests/fixtures/icofoam/<name>/<end
/// time>/{U,p}.gz, for the tests that have no icoFoam to run (the cuda backend's on a GPU host).
struct StoredIcoFoamCase {
  std::string name;
  IcoFoamCase c;
  std::string end_time;
};

/// The tutorial at tolerances 1e-10, and a 3-D cavity with linearUpwind (momentum predictor on:
/// smoothSolver symGaussSeidel on U).
inline std::vector<StoredIcoFoamCase> stored_icofoam_cases() {
  return {{"cavity", {20, 20, 1, true, "Gauss linear", 0.005, 20, 1e-10, 1e-10, 0.0}, "0.1"},
          {"cavity3d-linearUpwind", {12, 12, 12, false, "Gauss linearUpwind grad(U)", 0.002, 20, 1e-10, 1e-10, 0.0},
           "0.04"}};
}

}  // namespace fvmmini::testing
