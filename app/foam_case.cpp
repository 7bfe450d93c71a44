#include "app/foam_case.hpp"

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
    out_["mesh"]["type"] = "polyMesh";
    out_["mesh"]["file"] = fs::absolute(dir_).lexically_normal().string();
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
    }
    for (const char* section : {"mesh", "physics", "time", "discretisation"})
      out_[section].SetStyle(YAML::EmitterStyle::Flow);
    for (auto patch : out_["boundaryField"]) patch.second.SetStyle(YAML::EmitterStyle::Flow);
    for (auto field : out_["solvers"]) field.second.SetStyle(YAML::EmitterStyle::Flow);
    YAML::Emitter emitter;
    emitter << out_;
    // --- the comments hold names from the case (its folder, patches): escaped, so that none can
    //     end its line and become YAML, nor reach a terminal raw
    constexpr std::size_t whole = 4096;
    std::string text =
        "# fvmmini --foam-case " + printable(dir_.string(), whole) + ": the icoFoam case mapped (docs/cases.md)\n";
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
      FoamEntry one{e->keyword, false, e->line, {t[k]}, nullptr};
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
    FoamEntry value{nu->keyword, false, nu->line, {nu->tokens.empty() ? "" : nu->tokens.back()}, nullptr};
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
    if (const auto e = number(d, entry(d, "endTime"))) out_["time"]["endTime"] = *e;
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
    if (control && interval) {
      if (*control == "timeStep") {
        if (adjustable) problem(d, *d.find("writeControl"), "timeStep with adjustTimeStep: write by runTime");
        else if (dt) out_["time"]["writeInterval"] = fmt::format("{}", std::stod(*interval) * std::stod(*dt));
      } else if (*control == "runTime" || *control == "adjustableRunTime") {
        out_["time"]["writeInterval"] = *interval;  // fvmmini lands on every write time (adjustableRunTime)
      } else {
        problem(d, *d.find("writeControl"), "fvmmini writes by timeStep, runTime or adjustableRunTime");
      }
    }
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
    if (const FoamEntry* max = s.find("maxIter")) map_integer(s, max, out["maxIter"], 1);
    if (const FoamEntry* min = s.find("minIter"); min && min->text() != "0")
      problem(s, *min, "fvmmini has no minIter (0 only)");
    only(s, known, "not a key of this solver");
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
