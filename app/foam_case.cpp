#include "app/foam_case.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "app/case_error.hpp"
#include "app/case_loader.hpp"
#include "app/vtk_writer.hpp"
#include "base/printable.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/foam_dictionary.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/text_reader.hpp"

namespace fvmmini {

namespace {

namespace fs = std::filesystem;

using Dictionary = std::shared_ptr<const FoamDictionary>;

/// Reads the case's dictionaries and writes the fvmmini case, every problem collected.
class FoamCaseMapper {
 public:
  explicit FoamCaseMapper(fs::path dir) : dir_(std::move(dir)) {}

  std::string map() {
    const Dictionary control = read("system/controlDict");
    const Dictionary schemes = read("system/fvSchemes");
    const Dictionary solution = read("system/fvSolution");
    const Dictionary transport = read("constant/transportProperties");
    // --- the polyMesh where there is one (OpenFOAM reads it), else blockMesh's block as a box
    const bool block_mesh = !exists("constant/polyMesh") && exists("system/blockMeshDict");
    if (block_mesh) {
      out_["mesh"]["type"] = "box";
      if (const Dictionary blocks = read("system/blockMeshDict")) map_block_mesh(*blocks);
    } else {
      out_["mesh"]["type"] = "polyMesh";
      out_["mesh"]["file"] = fs::absolute(dir_).lexically_normal().string();
    }
    out_["physics"]["type"] = "incompressible";
    out_["physics"]["algorithm"] = "PISO";
    // --- each dictionary there is mapped, so that every problem is reported at once
    if (transport) map_transport(*transport);
    const std::string start = control ? map_control(*control) : "0";
    if (schemes) map_schemes(*schemes);
    if (solution) map_solution(*solution);
    map_fields(start);
    if (!problems_.empty()) throw CaseError(problems_);
    if (!vtk_output_available()) {
      out_["output"]["vtk"] = false;
      out_["output"].SetStyle(YAML::EmitterStyle::Flow);
      notes_.push_back("output.vtk: false, as this build of fvmmini has no VTK output: fields are not written");
    } else if (!no_write_.empty()) {
      out_["output"]["vtk"] = false;
      out_["output"].SetStyle(YAML::EmitterStyle::Flow);
      notes_.push_back("output.vtk: false, as icoFoam writes no fields here: " + no_write_ +
                       " (--set output.vtk=true writes them at the start and the end)");
    }
    for (const char* section : {"mesh", "physics", "time", "discretisation"})
      if (!(block_mesh && std::string(section) == "mesh")) out_[section].SetStyle(YAML::EmitterStyle::Flow);
    for (auto patch : out_["mesh"]["patches"]) patch.second.SetStyle(YAML::EmitterStyle::Flow);
    for (auto patch : out_["boundaryField"]) patch.second.SetStyle(YAML::EmitterStyle::Flow);
    for (auto field : out_["solvers"]) field.second.SetStyle(YAML::EmitterStyle::Flow);
    YAML::Emitter emitter;
    emitter << out_;
    // --- the comments hold names from the case (its folder, patches): escaped, so that none can
    //     end its line and become YAML, nor reach a terminal raw
    constexpr std::size_t whole = 4096;
    std::string text = "# fvmmini --foam-case " + printable(dir_.string(), whole) + ": the icoFoam case mapped" +
                       (block_mesh ? ", its mesh system/blockMeshDict's block (no constant/polyMesh)" : "") +
                       " (docs/cases.md)\n";
    for (const std::string& note : notes_) text += "# " + printable(note, whole) + "\n";
    return text + emitter.c_str() + "\n";
  }

 private:
  // --- reading

  Dictionary read(const std::string& name) {
    const fs::path file = dir_ / name;
    try {
      if (!path_exists(file)) {
        problems_.push_back(CaseProblem{SourceLocation{shown(name), 0, 0}, "missing: an icoFoam case has " + name});
        return nullptr;
      }
      return read_foam_dictionary(file, shown(name));
    } catch (const MeshError& e) {
      problems_.push_back(CaseProblem{SourceLocation{shown(name), 0, 0}, e.what()});
      return nullptr;
    }
  }
  std::string shown(const std::string& name) const { return (dir_ / name).string(); }
  /// Whether the case has `name` (a problem where it cannot be looked at).
  bool exists(const std::string& name) {
    try {
      return path_exists(dir_ / name);
    } catch (const MeshError& e) {
      problems_.push_back(CaseProblem{SourceLocation{shown(name), 0, 0}, e.what()});
      return false;
    }
  }

  void problem(const FoamDictionary& dict, const FoamEntry* entry, const std::string& message) {
    const int line = entry ? static_cast<int>(entry->line) : 0;
    problems_.push_back(CaseProblem{SourceLocation{dict.file(), line, 0}, message});
  }
  void problem(const FoamDictionary& dict, const FoamEntry& entry, const std::string& message) {
    problem(dict, &entry, dict.path_of(entry.keyword) + " " + printable(entry.text()) + ": " + message);
  }

  /// The entry `keyword` of `dict`, or null (and a problem when `required`).
  const FoamEntry* entry(const FoamDictionary& dict, const std::string& keyword, bool required = true) {
    const FoamEntry* e = dict.find(keyword);
    if (!e && required) problem(dict, nullptr, "missing entry " + dict.path_of(keyword));
    return e;
  }
  const FoamDictionary* sub_dictionary(const FoamDictionary& dict, const std::string& keyword, bool required = true) {
    const FoamEntry* e = entry(dict, keyword, required);
    if (e && !e->dictionary) problem(dict, *e, "expected a dictionary");
    return e ? e->dictionary.get() : nullptr;
  }
  /// One token of a value ("Euler"), or nullopt (a problem).
  std::optional<std::string> word(const FoamDictionary& dict, const FoamEntry* e) {
    if (!e) return std::nullopt;
    if (e->dictionary || e->tokens.size() != 1) {
      problem(dict, *e, "expected one word");
      return std::nullopt;
    }
    return e->tokens.front();
  }
  /// A finite number, kept as written (the case reads the same double).
  std::optional<std::string> number(const FoamDictionary& dict, const FoamEntry* e) {
    const auto text = word(dict, e);
    if (!text) return std::nullopt;
    try {
      std::size_t used = 0;
      const double value = std::stod(*text, &used);
      if (used == text->size() && std::isfinite(value)) return text;
    } catch (const std::exception&) {
    }
    problem(dict, *e, "expected a number");
    return std::nullopt;
  }
  /// OpenFOAM's switch words.
  std::optional<bool> flag(const FoamDictionary& dict, const FoamEntry* e) {
    const auto text = word(dict, e);
    if (!text) return std::nullopt;
    for (const char* yes : {"yes", "on", "true", "y", "t"})
      if (*text == yes) return true;
    for (const char* no : {"no", "off", "false", "n", "f", "none"})
      if (*text == no) return false;
    problem(dict, *e, "expected yes or no");
    return std::nullopt;
  }
  /// `uniform (x y z)` or `uniform s`: the values, or nullopt (a problem).
  std::optional<std::vector<std::string>> uniform(const FoamDictionary& dict, const FoamEntry* e, int width) {
    if (!e) return std::nullopt;
    const auto& t = e->tokens;
    const bool vector_form = width == 3 && t.size() == 6 && t[1] == "(" && t[5] == ")";
    if (e->dictionary || t.empty() || t[0] != "uniform" || !(vector_form || (width == 1 && t.size() == 2))) {
      problem(dict, *e, width == 3 ? "expected uniform (x y z): fvmmini maps uniform values"
                                   : "expected uniform <value>: fvmmini maps uniform values");
      return std::nullopt;
    }
    std::vector<std::string> values;
    for (std::size_t k = vector_form ? 2 : 1; k < (vector_form ? 5u : 2u); ++k) {
      FoamEntry one{e->keyword, false, e->line, {t[k]}, nullptr, {}, {}};
      const auto value = number(dict, &one);
      if (!value) return std::nullopt;
      values.push_back(*value);
    }
    return values;
  }
  static YAML::Node flow_list(const std::vector<std::string>& values) {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& v : values) list.push_back(v);
    list.SetStyle(YAML::EmitterStyle::Flow);
    return list;
  }
  /// Every entry of `dict` but those named is a problem: nothing is dropped unseen.
  void only(const FoamDictionary& dict, const std::set<std::string>& known, const std::string& what) {
    for (const FoamEntry& e : dict.entries())
      if (!known.count(e.keyword) && e.keyword != "FoamFile")
        problem(dict, &e, fmt::format("{}: fvmmini does not map {} here ({})", dict.path_of(e.keyword),
                                      printable(e.keyword), what));
  }

  // --- the dictionaries

  void map_transport(const FoamDictionary& d) {
    const FoamEntry* nu = entry(d, "nu");
    if (!nu) return;
    // nu [0 2 -1 0 0 0 0] 0.01 (or nu 0.01): the value is the last token
    FoamEntry value{nu->keyword, false, nu->line, {nu->tokens.empty() ? "" : nu->tokens.back()}, nullptr, {}, {}};
    if (const auto v = number(d, &value)) out_["physics"]["nu"] = *v;
    if (const FoamEntry* model = d.find("transportModel"); model && model->text() != "Newtonian")
      problem(d, *model, "icoFoam's fluid is Newtonian");
    only(d, {"nu", "transportModel"}, "icoFoam reads nu");
  }

  /// time: startTime, endTime, deltaT, writeInterval (maxCo where adjustTimeStep). @return the
  /// start time's folder name, as written
  std::string map_control(const FoamDictionary& d) {
    std::string start = "0";
    if (const auto from = word(d, entry(d, "startFrom", false)); from && *from != "startTime")
      problem(d, *d.find("startFrom"), "fvmmini starts from startTime");
    if (const auto stop = word(d, entry(d, "stopAt", false)); stop && *stop != "endTime")
      problem(d, *d.find("stopAt"), "fvmmini stops at endTime");
    if (const auto s = number(d, entry(d, "startTime"))) out_["time"]["startTime"] = start = *s;
    const auto end = number(d, entry(d, "endTime"));
    if (end) out_["time"]["endTime"] = *end;
    const auto dt = number(d, entry(d, "deltaT"));
    if (dt) out_["time"]["deltaT"] = *dt;
    const FoamEntry* adjust = d.find("adjustTimeStep");
    const bool adjustable = adjust && flag(d, adjust).value_or(false);
    if (adjustable) {
      if (const auto co = number(d, entry(d, "maxCo"))) out_["time"]["maxCo"] = *co;
      if (const FoamEntry* max_dt = d.find("maxDeltaT"))
        if (const auto m = number(d, max_dt)) out_["time"]["maxDeltaT"] = *m;
    }
    const auto control = word(d, entry(d, "writeControl"));
    const auto interval = number(d, entry(d, "writeInterval"));
    std::optional<double> every;  // the write interval in time
    if (control && interval) {
      if (*control == "timeStep") {
        if (adjustable) problem(d, *d.find("writeControl"), "timeStep with adjustTimeStep: write by runTime");
        else if (dt) every = std::stod(*interval) * std::stod(*dt);
        if (every) out_["time"]["writeInterval"] = fmt::format("{}", *every);
      } else if (*control == "runTime" || *control == "adjustableRunTime") {
        out_["time"]["writeInterval"] = *interval;  // fvmmini lands on every write time (adjustableRunTime)
        every = std::stod(*interval);
      } else {
        problem(d, *d.find("writeControl"), "fvmmini writes by timeStep, runTime or adjustableRunTime");
      }
    }
    // --- stopAt endTime writes at write times only (fvmmini also at the end): none in the run, no fields
    if (every && end && *every > (std::stod(*end) - std::stod(start)) * (1 + 1e-9))
      no_write_ = fmt::format("writeInterval {} ({}) is past endTime", *interval, *control);
    std::string output_controls;
    for (const char* k : {"writeFormat", "writePrecision", "writeCompression", "timeFormat", "timePrecision",
                          "runTimeModifiable", "purgeWrite", "graphFormat"})
      if (const FoamEntry* e = d.find(k)) output_controls += fmt::format("{}{} {}", output_controls.empty() ? "" : ", ",
                                                                          k, printable(e->text()));
    if (!output_controls.empty())
      notes_.push_back("not mapped (OpenFOAM's own files; fvmmini writes VTK in double precision): " + output_controls);
    only(d, {"application", "startFrom", "startTime", "stopAt", "endTime", "deltaT", "writeControl", "writeInterval",
             "adjustTimeStep", "maxCo", "maxDeltaT", "writeFormat", "writePrecision", "writeCompression",
             "timeFormat", "timePrecision", "runTimeModifiable", "purgeWrite", "graphFormat"},
         "function objects, libraries and other controls are not run");
    if (const FoamEntry* app = d.find("application"); app && app->text() != "icoFoam")
      problem(d, *app, "fvmmini maps icoFoam's cases");
    return start;
  }

  /// Each scheme icoFoam uses, its entry or the section's default.
  const FoamEntry* scheme(const FoamDictionary& d, const std::string& section, const std::string& name) {
    const FoamDictionary* s = sub_dictionary(d, section);
    if (!s) return nullptr;
    const FoamEntry* e = s->find(name);
    if (!e) e = s->find("default");
    if (!e) problem(d, nullptr, fmt::format("missing {}.{} (or {}.default)", section, name, section));
    return e;
  }
  /// A problem unless the scheme `e` of `section` is one of `accepted`.
  void require(const FoamDictionary* section, const FoamEntry* e, const std::vector<std::string>& accepted,
               const std::string& why) {
    if (e && section && std::find(accepted.begin(), accepted.end(), e->text()) == accepted.end())
      problem(*section, *e, why);
  }
  void map_schemes(const FoamDictionary& d) {
    const auto section = [&](const char* name) { return d.find(name) ? d.find(name)->dictionary.get() : nullptr; };
    require(section("ddtSchemes"), scheme(d, "ddtSchemes", "ddt(U)"), {"Euler"}, "fvmmini's PISO is Euler");
    for (const char* g : {"grad(p)", "grad(U)"})
      require(section("gradSchemes"), scheme(d, "gradSchemes", g), {"Gauss linear"},
              "fvmmini's PISO takes Gauss linear gradients");
    if (const FoamEntry* div = scheme(d, "divSchemes", "div(phi,U)"); div && section("divSchemes")) {
      const std::map<std::string, std::string> convection{{"Gauss linear", "linear"},
                                                          {"Gauss upwind", "upwind"},
                                                          {"Gauss linearUpwind grad(U)", "linearUpwind"}};
      const auto found = convection.find(div->text());
      if (found == convection.end())
        problem(*section("divSchemes"), *div,
                "fvmmini maps Gauss linear, Gauss upwind and Gauss linearUpwind grad(U)");
      else
        out_["physics"]["convection"] = found->second;
    }
    // --- one snGrad for both Laplacians: Gauss linear corrected or orthogonal
    std::optional<std::string> sn_grad;
    for (const char* l : {"laplacian(nu,U)", "laplacian((1|A(U)),p)"}) {
      const FoamEntry* e = scheme(d, "laplacianSchemes", l);
      if (!e || !section("laplacianSchemes")) continue;
      const std::string text = e->text();
      const std::string word = text == "Gauss linear corrected"    ? "corrected"
                               : text == "Gauss linear orthogonal" ? "orthogonal"
                                                                   : "";
      if (word.empty())
        problem(*section("laplacianSchemes"), *e, "fvmmini maps Gauss linear corrected and Gauss linear orthogonal");
      else if (sn_grad && *sn_grad != word)
        problem(*section("laplacianSchemes"), *e, "fvmmini takes one snGrad for both of icoFoam's Laplacians");
      else
        sn_grad = word;
    }
    if (sn_grad) out_["physics"]["snGrad"] = *sn_grad;
    require(section("interpolationSchemes"), scheme(d, "interpolationSchemes", "interpolate(HbyA)"), {"linear"},
            "fvmmini interpolates linearly");
    require(section("snGradSchemes"), scheme(d, "snGradSchemes", "snGrad(p)"), {"orthogonal", "corrected"},
            "fvmmini maps orthogonal and corrected");
  }

  /// solvers.<field> from fvSolution's solvers entry for it.
  void map_solver(const FoamDictionary& solvers, const std::string& field) {
    const FoamEntry* e = solvers.find_matching(field);
    if (!e) {
      problem(solvers, nullptr, "missing entry " + solvers.path_of(field));
      return;
    }
    if (!e->dictionary) {
      problem(solvers, *e, "expected a dictionary");
      return;
    }
    const FoamDictionary& s = *e->dictionary;
    YAML::Node out = out_["solvers"][field];
    const std::map<std::string, std::string> methods{{"PCG", "CG"}, {"PBiCGStab", "PBiCGStab"},
                                                      {"smoothSolver", "smoothSolver"}};
    const auto solver = word(s, entry(s, "solver"));
    if (solver) {
      const auto found = methods.find(*solver);
      if (found == methods.end())
        problem(s, *s.find("solver"), "fvmmini maps PCG, PBiCGStab and smoothSolver");
      else
        out["solver"] = found->second;
    }
    std::set<std::string> known{"solver", "tolerance", "relTol", "maxIter", "minIter"};
    if (solver && *solver == "smoothSolver") {
      known.insert({"smoother", "nSweeps"});
      if (const auto smoother = word(s, entry(s, "smoother"))) {
        if (*smoother == "GaussSeidel" || *smoother == "symGaussSeidel") out["smoother"] = *smoother;
        else problem(s, *s.find("smoother"), "fvmmini's smoothSolver takes GaussSeidel and symGaussSeidel");
      }
      if (const FoamEntry* sweeps = s.find("nSweeps")) map_integer(s, sweeps, out["nSweeps"], 1);
    } else if (solver) {
      known.insert("preconditioner");
      map_preconditioner(s, out);
    }
    if (const auto tolerance = number(s, entry(s, "tolerance", false))) out["tolerance"] = *tolerance;  // (both: 1e-6)
    if (const FoamEntry* rel = s.find("relTol")) {
      if (const auto r = number(s, rel)) out["relTol"] = *r;
    } else {
      out["relTol"] = "0";
    }
    if (const FoamEntry* max = s.find("maxIter")) {
      // OpenFOAM's solvers test maxIter after an iteration (do ... while): maxIter 0 iterates once
      if (max->text() == "0") {
        out["maxIter"] = "1";
        notes_.push_back(fmt::format("{}: maxIter 0 is maxIter 1: OpenFOAM's solvers iterate once before they test "
                                     "maxIter", s.path()));
      } else {
        map_integer(s, max, out["maxIter"], 1);
      }
    }
    if (const FoamEntry* min = s.find("minIter"); min && min->text() != "0")
      problem(s, *min, "fvmmini has no minIter (0 only)");
    only(s, known, "not a key of this solver");
    // where it solves is fvmmini's choice, as the shipped cases make it: the GPU where there is one
    out["backend"] = "auto";
    out["format"] = "auto";
  }
  void map_integer(const FoamDictionary& d, const FoamEntry* e, YAML::Node out, long least) {
    const auto text = word(d, e);
    if (!text) return;
    try {
      std::size_t used = 0;
      const long value = std::stol(*text, &used);
      if (used == text->size() && value >= least && value <= 1000000000) {
        out = *text;
        return;
      }
    } catch (const std::exception&) {
    }
    problem(d, *e, fmt::format("expected an integer of at least {}", least));
  }
  void map_preconditioner(const FoamDictionary& s, YAML::Node out) {
    const FoamEntry* e = entry(s, "preconditioner");
    if (!e) return;
    const FoamDictionary* settings = e->dictionary.get();
    const FoamDictionary& where = settings ? *settings : s;
    const auto name = settings ? word(*settings, entry(*settings, "preconditioner")) : word(s, e);
    if (!name) return;
    const std::map<std::string, std::string> preconditioners{
        {"none", "none"}, {"diagonal", "diagonal"}, {"DIC", "DIC"}, {"DILU", "DILU"}, {"GAMG", "GAMG"}};
    const auto found = preconditioners.find(*name);
    if (found == preconditioners.end()) {
      problem(where, settings ? *settings->find("preconditioner") : *e,
              "fvmmini maps none, diagonal, DIC, DILU and GAMG");
      return;
    }
    out["preconditioner"] = found->second;
    if (!settings) return;
    std::set<std::string> known{"preconditioner"};
    if (*name == "GAMG") {
      for (const char* key : {"nCellsInCoarsestLevel", "mergeLevels", "nPreSweeps", "nPostSweeps", "nVcycles"})
        if (const FoamEntry* k = settings->find(key)) {
          known.insert(key);
          map_integer(*settings, k, out[key], 0);
        }
    }
    only(*settings, known, "fvmmini's GAMG differs there (docs/solvers.md): write the keys it maps");
  }
  void map_solution(const FoamDictionary& d) {
    if (const FoamDictionary* solvers = sub_dictionary(d, "solvers")) {
      for (const char* field : {"U", "p", "pFinal"}) map_solver(*solvers, field);
    }
    const FoamDictionary* piso = sub_dictionary(d, "PISO");
    if (!piso) return;
    if (const FoamEntry* n = piso->find("nCorrectors")) map_integer(*piso, n, out_["physics"]["nCorrectors"], 1);
    if (const FoamEntry* n = piso->find("nNonOrthogonalCorrectors"))
      map_integer(*piso, n, out_["physics"]["nNonOrthogonalCorrectors"], 0);
    if (const FoamEntry* m = piso->find("momentumPredictor"))
      if (const auto on = flag(*piso, m)) out_["physics"]["momentumPredictor"] = *on;
    if (const FoamEntry* cell = piso->find("pRefCell"))
      map_integer(*piso, cell, out_["discretisation"]["referenceCell"], 0);
    if (const FoamEntry* value = piso->find("pRefValue"))
      if (const auto v = number(*piso, value)) out_["discretisation"]["referenceValue"] = *v;
    only(*piso, {"nCorrectors", "nNonOrthogonalCorrectors", "momentumPredictor", "pRefCell", "pRefValue"},
         "pRefPoint and the other controls are not mapped");
  }

  // --- system/blockMeshDict: one hexahedral block with straight edges and uniform cells is the box
  //     mesh fvmmini generates; any other is refused, naming the entry

  /// A problem at the line of `e`'s token `k`.
  void problem_at(const FoamDictionary& d, const FoamEntry& e, std::size_t k, const std::string& message) {
    const long line = k < e.lines.size() ? e.lines[k] : e.line;
    problems_.push_back(CaseProblem{SourceLocation{d.file(), static_cast<int>(line), 0},
                                    d.path_of(e.keyword) + ": " + message});
  }
  /// Tokens [begin, end) of an entry: one token, or a list with its parentheses.
  struct Item {
    std::size_t begin = 0, end = 0;
    bool list(const FoamEntry& e) const { return end - begin >= 2 && e.tokens[begin] == "("; }
    const std::string& token(const FoamEntry& e) const { return e.tokens[begin]; }
  };
  /// The items of the list that is `e`'s value, a count of its elements before it allowed (`per`
  /// items each: a block's hex, vertices, cells, grading and grades are 5), or nullopt (a problem).
  std::optional<std::vector<Item>> items(const FoamDictionary& d, const FoamEntry& e, const std::string& expected,
                                         std::size_t per = 1) {
    Item list{0, e.tokens.size()};
    const long count = e.tokens.size() >= 2 && e.tokens[1] == "(" ? integer(e.tokens[0]).value_or(-1) : -1;
    if (count >= 0) ++list.begin;
    if (!list.list(e) || e.tokens[list.end - 1] != ")") {
      problem_at(d, e, list.begin, "expected " + expected);
      return std::nullopt;
    }
    std::vector<Item> found;
    int depth = 0;
    for (std::size_t k = list.begin + 1; k + 1 < list.end; ++k) {
      if (depth == 0) found.push_back({k, k + 1});
      depth += (e.tokens[k] == "(") - (e.tokens[k] == ")");
      found.back().end = k + 1;
      if (depth < 0) {  // "(a) (b)": two lists
        problem_at(d, e, k, "expected " + expected);
        return std::nullopt;
      }
    }
    if (count >= 0 && static_cast<std::size_t>(count) * per != found.size()) {
      problem_at(d, e, 0, fmt::format("the list says {} entries and holds {}", count,
                                      per == 1 ? fmt::format("{}", found.size()) : "others"));
      return std::nullopt;
    }
    return found;
  }
  /// The tokens of a list of `n` single tokens ("(0 1 2 3)"), or nullopt.
  static std::optional<std::vector<std::string>> flat(const FoamEntry& e, const Item& item, std::size_t n) {
    if (!item.list(e) || item.end - item.begin != n + 2) return std::nullopt;
    std::vector<std::string> tokens(e.tokens.begin() + item.begin + 1, e.tokens.begin() + item.end - 1);
    if (std::any_of(tokens.begin(), tokens.end(), [](const std::string& t) { return t == "(" || t == ")"; }))
      return std::nullopt;
    return tokens;
  }
  static std::string item_text(const FoamEntry& e, const Item& item) {
    std::string text;
    for (std::size_t k = item.begin; k < item.end; ++k) text += (text.empty() ? "" : " ") + e.tokens[k];
    return printable(text);
  }
  static std::optional<long> integer(const std::string& text) {
    try {
      std::size_t used = 0;
      const long value = std::stol(text, &used);
      if (used == text.size() && value >= 0 && value <= 1000000000) return value;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }
  static std::optional<double> real(const std::string& text) {
    try {
      std::size_t used = 0;
      const double value = std::stod(text, &used);
      if (used == text.size() && std::isfinite(value)) return value;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }
  /// A problem unless `keyword` is absent or an empty list.
  void no_items(const FoamDictionary& d, const std::string& keyword, const std::string& why) {
    const FoamEntry* e = d.find(keyword);
    if (!e) return;
    if (e->dictionary) {
      problem(d, *e, why);
    } else if (const auto found = items(d, *e, "a list"); found && !found->empty()) {
      problem(d, *e, why);
    }
  }

  void map_block_mesh(const FoamDictionary& d) {
    only(d, {"scale", "convertToMeters", "vertices", "blocks", "edges", "faces", "boundary", "defaultPatch",
             "mergePatchPairs"},
         "fvmmini maps one block with its vertices, scale and boundary");
    no_items(d, "edges", "curved edges: fvmmini's box has straight edges");
    no_items(d, "faces", "projected faces: fvmmini's box has plane sides");
    no_items(d, "mergePatchPairs", "merged patches: fvmmini maps one block");
    // --- scale (convertToMeters before OpenFOAM 1.6; scale read first, as blockMesh does)
    double scale = 1.0;
    if (const FoamEntry* e = d.find("scale") ? d.find("scale") : d.find("convertToMeters")) {
      const auto value = number(d, e);
      if (value && std::stod(*value) > 0.0) scale = std::stod(*value);
      else if (value) problem(d, *e, "expected a factor above 0");
    }
    // --- vertices
    std::vector<std::array<double, 3>> vertices;
    const FoamEntry* v = entry(d, "vertices");
    if (const auto list = v ? items(d, *v, "a list of vertices (x y z)") : std::nullopt) {
      if (list->empty()) problem(d, *v, "no vertices");
      for (const Item& item : *list) {
        const auto xyz = flat(*v, item, 3);
        std::array<double, 3> point{};
        for (int i = 0; xyz && i < 3; ++i) point[i] = real((*xyz)[i]).value_or(NAN);
        if (!xyz || std::isnan(point[0] + point[1] + point[2])) {
          problem_at(d, *v, item.begin, "expected a vertex (x y z): fvmmini maps vertices given by position");
          return;
        }
        vertices.push_back(point);
      }
    }
    // --- one block: hex (8 vertices) (nx ny nz) simpleGrading (1 1 1) (or edgeGrading, 12 ones)
    const FoamEntry* b = entry(d, "blocks");
    const auto blocks = b ? items(d, *b, "a list of blocks", 5) : std::nullopt;
    if (!blocks || vertices.empty()) return;
    const std::string form = "hex (8 vertices) (nx ny nz) simpleGrading (1 1 1) (or edgeGrading with 12 ones)";
    if (blocks->size() < 5) {
      problem_at(d, *b, blocks->empty() ? 0 : (*blocks)[0].begin, "expected one block, " + form);
      return;
    }
    const auto shape = flat(*b, (*blocks)[1], 8);
    const auto cells = flat(*b, (*blocks)[2], 3);
    const std::string& grading = (*blocks)[3].token(*b);
    const auto grades = flat(*b, (*blocks)[4], grading == "edgeGrading" ? 12 : 3);
    const bool graded = grading == "simpleGrading" || grading == "edgeGrading";
    if ((*blocks)[0].token(*b) != "hex" || !shape || !cells || !graded) {
      problem_at(d, *b, (*blocks)[0].begin, "expected " + form);  // (a zone name, another shape, ...)
      return;
    }
    if (blocks->size() > 5) {
      problem_at(d, *b, (*blocks)[5].begin, "a second block: fvmmini maps one block (a box)");
      return;
    }
    if (!grades || std::any_of(grades->begin(), grades->end(), [](const std::string& g) { return real(g) != 1.0; }))
      problem_at(d, *b, (*blocks)[3].begin, "grading other than 1: fvmmini's box has uniform cells");
    std::array<long, 8> hex{};
    for (int k = 0; k < 8; ++k) {
      const auto label = integer((*shape)[k]);
      if (!label || *label >= static_cast<long>(vertices.size())) {
        problem_at(d, *b, (*blocks)[1].begin + 1 + k,
                   fmt::format("vertex {} is not one of the {} vertices (0 to {})", printable((*shape)[k]),
                               vertices.size(), vertices.size() - 1));
        return;
      }
      hex[k] = *label;
    }
    std::array<long, 3> n{};
    for (int i = 0; i < 3; ++i) {
      const auto count = integer((*cells)[i]);
      if (!count || *count < 1) {
        problem_at(d, *b, (*blocks)[2].begin, "expected the cells along x, y and z, each at least 1");
        return;
      }
      n[i] = *count;
    }
    // --- the hex in blockMesh's order is the box: local x, y, z along the axes, each side a plane
    const auto at = [&](int k) { return vertices[hex[k]]; };
    bool box = true;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 8; ++k) {
        const bool upper = i == 0 ? (k == 1 || k == 2 || k == 5 || k == 6) : i == 1 ? (k % 4 >= 2) : k >= 4;
        box = box && at(k)[i] == (upper ? at(6)[i] : at(0)[i]) && at(0)[i] < at(6)[i];
      }
    if (!box) {
      problem_at(d, *b, (*blocks)[1].begin,
                 "its vertices are not a box along the axes in blockMesh's order (vertex 0 to 1 along x, 0 to 3 "
                 "along y, 0 to 4 along z): fvmmini maps the block its box generator makes");
      return;
    }
    YAML::Node mesh = out_["mesh"];
    mesh["cells"] = flow_list({std::to_string(n[0]), std::to_string(n[1]), std::to_string(n[2])});
    std::vector<std::string> min, max;
    for (int i = 0; i < 3; ++i) {
      min.push_back(fmt::format("{}", scale * at(0)[i]));
      max.push_back(fmt::format("{}", scale * at(6)[i]));
    }
    mesh["min"] = flow_list(min);
    mesh["max"] = flow_list(max);
    map_block_patches(d, hex);
  }

  /// mesh.patches: each boundary patch's faces as the box's sides; the sides no face names are
  /// blockMesh's default patch (defaultFaces, empty).
  void map_block_patches(const FoamDictionary& d, const std::array<long, 8>& hex) {
    // the block's faces by local vertex, outward (OpenFOAM's hex), in BoxSide order
    static constexpr int sides[6][4] = {{0, 4, 7, 3}, {1, 2, 6, 5}, {0, 1, 5, 4},
                                        {3, 7, 6, 2}, {0, 3, 2, 1}, {4, 5, 6, 7}};
    std::array<std::string, 6> owner;  // the patch of each side
    std::vector<std::pair<std::string, std::string>> patches;  // name, type, in order
    std::map<std::string, std::vector<std::string>> patch_sides;
    const std::set<std::string> types{"patch", "wall", "empty"};
    const FoamEntry* boundary = d.find("boundary");
    const std::string form = "patches as name { type ...; faces (...); }";
    const auto list = boundary ? items(d, *boundary, "a list of " + form, 2) : std::vector<Item>{};
    if (!list) return;
    if (list->size() != 2 * boundary->elements.size()) problem_at(d, *boundary, 0, "expected " + form);
    for (const FoamEntry& patch : boundary ? boundary->elements : std::vector<FoamEntry>{}) {
      const FoamDictionary& p = *patch.dictionary;
      only(p, {"type", "faces"}, "fvmmini maps a patch's type and faces");
      if (patch_sides.count(patch.keyword)) {
        problems_.push_back(CaseProblem{SourceLocation{d.file(), static_cast<int>(patch.line), 0},
                                        p.path() + ": a second patch of that name"});
        continue;
      }
      const auto type = word(p, entry(p, "type"));
      if (type && !types.count(*type))
        problem(p, *p.find("type"), "fvmmini's box takes the patch types patch, wall and empty");
      patches.emplace_back(patch.keyword, type.value_or("patch"));
      std::vector<std::string>& named = patch_sides[patch.keyword];
      const FoamEntry* faces = entry(p, "faces");
      const auto quads = faces ? items(p, *faces, "a list of faces (a b c d)") : std::nullopt;
      for (const Item& item : quads.value_or(std::vector<Item>{})) {
        const auto quad = flat(*faces, item, 4);
        std::array<int, 4> local{-1, -1, -1, -1};  // the face's vertices in the hex
        for (int k = 0; quad && k < 4; ++k)
          if (const auto label = integer((*quad)[k]))
            local[k] = static_cast<int>(std::find(hex.begin(), hex.end(), *label) - hex.begin());
        int side = -1;
        bool inward = false;
        for (int s = 0; s < 6; ++s)
          for (int r = 0; r < 4; ++r) {
            bool same = true, reversed = true;
            for (int k = 0; k < 4; ++k) {
              same = same && local[(k + r) % 4] == sides[s][k];
              reversed = reversed && local[(r + 4 - k) % 4] == sides[s][k];
            }
            if (same || reversed) side = s, inward = reversed;
          }
        const std::string shown = item_text(*faces, item);
        if (!quad) {
          problem_at(p, *faces, item.begin, shown + ": expected a face of 4 vertices (a b c d)");
        } else if (side < 0) {
          problem_at(p, *faces, item.begin, shown + ": not one side of the block: fvmmini maps faces that are "
                                                    "whole sides of its box");
        } else if (inward) {
          problem_at(p, *faces, item.begin, shown + ": points into the block (blockMesh refuses it): write its "
                                                    "vertices the other way round");
        } else if (!owner[side].empty()) {
          problem_at(p, *faces, item.begin, fmt::format("{}: side {} is patch {}'s already", shown,
                                                        to_string(static_cast<BoxSide>(side)), printable(owner[side])));
        } else {
          owner[side] = patch.keyword;
          named.push_back(to_string(static_cast<BoxSide>(side)));
        }
      }
      if (quads && quads->empty())
        problem(p, faces, p.path_of("faces") + ": no faces: fvmmini's box has no patch without faces");
    }
    // --- the sides left: blockMesh's default patch, a patch of that name given them
    std::string name = "defaultFaces", type = "empty";
    if (const FoamDictionary* dflt = sub_dictionary(d, "defaultPatch", false)) {
      only(*dflt, {"name", "type"}, "blockMesh's default patch has a name and a type");
      if (const auto n = word(*dflt, dflt->find("name"))) name = *n;
      if (const auto t = word(*dflt, dflt->find("type"))) type = *t;
    }
    std::vector<std::string> left;
    for (int s = 0; s < 6; ++s)
      if (owner[s].empty()) left.push_back(to_string(static_cast<BoxSide>(s)));
    if (!left.empty()) {
      const bool given = patch_sides.count(name) > 0;
      if (!given && !types.count(type))
        problem(d, d.find("defaultPatch"), fmt::format("defaultPatch: type {}: fvmmini's box takes the patch types "
                                                        "patch, wall and empty", printable(type)));
      if (!given) patches.emplace_back(name, type);
      std::vector<std::string>& named = patch_sides[name];
      named.insert(named.end(), left.begin(), left.end());
      std::string joined;
      for (const std::string& side : left) joined += (joined.empty() ? "" : ", ") + side;
      notes_.push_back(fmt::format("{}: the sides no face of boundary names ({}), blockMesh's defaultPatch", name,
                                   joined));
    }
    for (const auto& [patch, type_of] : patches) {
      YAML::Node node = out_["mesh"]["patches"][patch];
      node["sides"] = flow_list(patch_sides[patch]);
      node["type"] = type_of;
    }
  }

  /// boundaryField from the start time's U and p, patch by patch; the initial velocity.
  void map_fields(const std::string& start) {
    const Dictionary u = read(start + "/U");
    const Dictionary p = read(start + "/p");
    if (!u || !p) return;
    if (const auto value = uniform(*u, entry(*u, "internalField"), 3))
      out_["physics"]["initialVelocity"] = flow_list(*value);
    if (const auto value = uniform(*p, entry(*p, "internalField"), 1); value && std::stod(value->front()) != 0.0)
      problem(*p, *p->find("internalField"), "fvmmini starts p from uniform 0");
    for (const Dictionary& field : {u, p})
      only(*field, {"dimensions", "internalField", "boundaryField"}, "a field file holds its dimensions and values");
    const FoamDictionary* ub = sub_dictionary(*u, "boundaryField");
    const FoamDictionary* pb = sub_dictionary(*p, "boundaryField");
    if (!ub || !pb) return;
    for (const FoamEntry& patch : ub->entries()) {
      if (patch.pattern || !patch.dictionary) {
        problem(*ub, patch, "fvmmini maps one entry per patch, by name");
        continue;
      }
      const FoamEntry* p_patch = pb->find(patch.keyword);
      if (!p_patch || !p_patch->dictionary) {
        problem(*pb, nullptr, "missing entry " + pb->path_of(patch.keyword) + " (U has it)");
        continue;
      }
      map_patch(*patch.dictionary, *p_patch->dictionary, out_["boundaryField"][patch.keyword]);
    }
    for (const FoamEntry& patch : pb->entries())
      if (!ub->find(patch.keyword))
        problem(*ub, nullptr, "missing entry " + ub->path_of(patch.keyword) + " (p has it)");
  }
  /// The flow condition of U's and p's conditions on one patch.
  void map_patch(const FoamDictionary& u, const FoamDictionary& p, YAML::Node out) {
    const auto ut = word(u, entry(u, "type"));
    const auto pt = word(p, entry(p, "type"));
    if (!ut || !pt) return;
    for (const FoamDictionary* condition : {&u, &p})
      only(*condition, {"type", "value"}, "the conditions fvmmini maps take a type and a value");
    const bool u_fixed = *ut == "fixedValue" || *ut == "noSlip";
    if (*ut == "empty" && *pt == "empty") {
      out["type"] = "empty";
    } else if (u_fixed && *pt == "zeroGradient") {
      std::vector<std::string> value{"0", "0", "0"};
      if (*ut == "fixedValue")
        if (const auto v = uniform(u, entry(u, "value"), 3)) value = *v;
      const bool at_rest =
          std::all_of(value.begin(), value.end(), [](const std::string& c) { return std::stod(c) == 0.0; });
      // a fixed velocity other than 0 keeps its normal part, as OpenFOAM's fixedValue does: velocityInlet
      out["type"] = at_rest ? "wall" : "velocityInlet";
      if (!at_rest) {
        out["velocity"] = flow_list(value);
        notes_.push_back(fmt::format("{}: U fixedValue ({} {} {}) is velocityInlet, the velocity as given (its flux "
                                     "U_b . S: 0 for a lid moving in its plane)",
                                     u.path().substr(u.path().rfind('.') + 1), value[0], value[1], value[2]));
      }
    } else if (*ut == "zeroGradient" && *pt == "fixedValue") {
      out["type"] = "pressureOutlet";
      if (const auto v = uniform(p, entry(p, "value"), 1)) out["pressure"] = v->front();
    } else {
      problem(u, u.find("type"),
              fmt::format("{}: U {} with p {}: fvmmini maps fixedValue or noSlip U with zeroGradient p, zeroGradient U "
                          "with fixedValue p, and empty with empty",
                          u.path(), printable(*ut), printable(*pt)));
    }
  }

  fs::path dir_;
  YAML::Node out_;
  std::vector<CaseProblem> problems_;
  std::vector<std::string> notes_;
  std::string no_write_;  ///< why icoFoam writes no time in this run, or ""
};

}  // namespace

std::string foam_case_yaml(const std::filesystem::path& case_directory) {
  return FoamCaseMapper(case_directory).map();
}

ResolvedCase load_foam_case(const std::filesystem::path& case_directory, const std::vector<std::string>& overrides,
                            std::string* yaml) {
  const std::string text = foam_case_yaml(case_directory);
  if (yaml) *yaml = text;
  return load_case_text(text, case_directory, overrides);
}

}  // namespace fvmmini
