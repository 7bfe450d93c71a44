#include "app/run_summary.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "app/atomic_file.hpp"
#include "app/scalar_text.hpp"

namespace fvmmini {

namespace {

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

nlohmann::json node_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (auto it = node.begin(); it != node.end(); ++it) out[it->first.Scalar()] = node_to_json(it->second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(node_to_json(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (text == "true" || text == "false") return text == "true";
      if (const auto integer = parse_integer(text)) return *integer;
      if (const auto real = parse_real(text)) return *real;
      return text;
    }
    default:
      return nullptr;
  }
}

}  // namespace

nlohmann::json case_to_json(const ResolvedCase& resolved) { return node_to_json(resolved.tree()); }

RunSummary::RunSummary(const ResolvedCase& resolved, const RunContext& context) {
  json_["fvmmini"] = {{"version", context.version}, {"commandLine", context.command_line}};
  json_["caseFile"] = std::filesystem::absolute(resolved.case_file()).lexically_normal().string();
  json_["started"] = utc_now();
  json_["status"] = "running";
  json_["case"] = case_to_json(resolved);
  json_["results"] = nlohmann::json::object();
}

void RunSummary::set_mesh(const Mesh& mesh) {
  nlohmann::json patches = nlohmann::json::array();
  for (const auto& patch : mesh.patches)
    patches.push_back({{"name", patch.name}, {"type", patch.type}, {"faces", patch.size}});
  json_["mesh"] = {{"description", mesh.description}, {"cells", mesh.n_cells},
                   {"faces", mesh.n_faces()},          {"internalFaces", mesh.n_internal_faces()},
                   {"points", mesh.n_points()},        {"patches", patches}};
}

void RunSummary::add_solve(const SolverPerformance& performance) {
  nlohmann::json& field = json_["solves"][performance.field];
  if (!field.contains("solves"))  // the first solve (the preconditioner may be there already)
    field.update({{"solves", 0}, {"iterations", 0}, {"maxIterations", 0}, {"allConverged", true}});
  field["solver"] = performance.solver_name;
  field["solves"] = field["solves"].get<long long>() + 1;
  field["iterations"] = field["iterations"].get<long long>() + performance.iterations;
  field["maxIterations"] = std::max(field["maxIterations"].get<int>(), performance.iterations);
  field["allConverged"] = field["allConverged"].get<bool>() && performance.converged;
  field["lastInitialResidual"] = performance.initial_residual;
  field["lastFinalResidual"] = performance.final_residual;
}

void RunSummary::set_preconditioner(const std::string& field, const PreconditionerInfo& info) {
  nlohmann::json entry = {{"name", info.name}};
  if (info.levels > 0 || !info.grid_levels.empty()) {  // a set-up to report (not Jacobi's)
    entry["setupSeconds"] = info.setup_seconds;
    for (const auto& [part, seconds] : info.setup_parts) entry["setupParts"][part] = seconds;
    if (info.refresh_seconds > 0.0) entry["refreshSeconds"] = info.refresh_seconds;  // a host-timed refresh only
    for (const auto& [part, seconds] : info.refresh_parts) entry["refreshParts"][part] = seconds;
  }
  if (info.levels > 0) {
    const auto [smallest, largest] = std::minmax_element(info.level_sizes.begin(), info.level_sizes.end());
    long long rows = 0;
    for (label size : info.level_sizes) rows += size;
    entry["colours"] = info.colours;
    entry["levels"] = info.levels;
    entry["levelRows"] = {{"min", *smallest}, {"mean", static_cast<double>(rows) / info.levels}, {"max", *largest}};
    nlohmann::json histogram = nlohmann::json::array();
    for (const auto& [rows_from, count] : level_size_histogram(info.level_sizes))
      histogram.push_back({{"rowsFrom", rows_from}, {"rowsTo", 2 * rows_from - 1}, {"levels", count}});
    entry["levelSizeHistogram"] = histogram;
    entry["spmvPerApplication"] = info.spmv_equivalents;
  }
  if (!info.grid_levels.empty()) {
    entry["smoother"] = info.smoother;
    entry["operatorComplexity"] = info.operator_complexity();
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& level : info.grid_levels) {
      levels.push_back({{"cells", level.rows}, {"nonzeros", level.nnz}, {"format", level.format}});
      if (level.colours > 0) levels.back()["colours"] = level.colours;
    }
    entry["gridLevels"] = levels;
  }
  json_["solves"][field]["preconditioner"] = entry;
}

void RunSummary::set_format(const std::string& field, const FormatInfo& info) {
  nlohmann::json entry = {{"name", info.name},
                          {"ordering", info.ordering},
                          {"parameters", info.parameters},
                          {"setupSeconds", info.setup_seconds}};
  if (!info.tuning.empty()) {
    nlohmann::json trials = nlohmann::json::array();
    for (const auto& trial : info.tuning) trials.push_back({{"setting", trial.parameters}, {"spmvMs", trial.spmv_ms}});
    entry["tuning"] = {{"timer", info.tuning_timer},
                       {"seconds", info.tuning_seconds},
                       {"chosen", info.tuning[info.chosen].parameters},
                       {"trials", trials}};
  }
  json_["solves"][field]["format"] = entry;
}

void RunSummary::set_phases(const PhaseTimer& timer) {
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& [name, seconds] : timer.phases()) {
    nlohmann::json phase = {{"phase", name}, {"seconds", seconds}};
    for (const auto& [part, part_seconds] : timer.parts(name))
      phase["parts"].push_back({{"part", part}, {"seconds", part_seconds}});
    phases.push_back(std::move(phase));
  }
  json_["phases"] = phases;
  json_["wallSeconds"] = timer.wall_seconds();
}

void RunSummary::set_memory(std::uint64_t largest_rank, std::uint64_t all_ranks) {
  const auto cells = json_["mesh"].value("cells", std::int64_t{0});
  json_["memory"] = {{"peakResidentBytes", largest_rank},
                     {"peakResidentBytesAllRanks", all_ranks},
                     {"bytesPerCell", cells > 0 ? static_cast<double>(all_ranks) / static_cast<double>(cells) : 0.0}};
}

void RunSummary::set_device_memory(std::uint64_t largest_rank, std::uint64_t all_ranks) {
  const auto cells = json_["mesh"].value("cells", std::int64_t{0});
  json_["memory"]["peakDeviceBytes"] = largest_rank;
  json_["memory"]["peakDeviceBytesAllRanks"] = all_ranks;
  json_["memory"]["deviceBytesPerCell"] =
      cells > 0 ? static_cast<double>(all_ranks) / static_cast<double>(cells) : 0.0;
}

void RunSummary::set_rank_phases(const RankPhases& r) {
  nlohmann::json phases = nlohmann::json::array();
  for (std::size_t k = 0; k < r.names.size(); ++k) phases.push_back({{"phase", r.names[k]}, {"seconds", r.seconds[k]}});
  json_["phasesByRank"] = phases;
  json_["wallSecondsByRank"] = r.wall;
}

void RunSummary::set_status(const std::string& status, const std::string& message) {
  json_["status"] = status;
  json_["finished"] = utc_now();
  if (message.empty()) {
    json_.erase("error");
  } else {
    json_["error"] = message;
  }
}

void RunSummary::write(const std::filesystem::path& file) const {
  // the case's text is UTF-8 (validated); the command line, paths and messages may not be
  write_file_atomically(file, json_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void RunSummary::finish(const PhaseTimer& timer, const std::string& status, const std::string& message,
                        const std::filesystem::path& file) {
  set_phases(timer);
  set_status(status, message);
  if (file.has_filename()) write(file);
}

}  // namespace fvmmini
