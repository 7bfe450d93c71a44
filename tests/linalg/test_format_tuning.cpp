// Format keys set to auto (prepare_format with a timer): the grid each unit declares, settings the
// matrix refuses dropped and repeats merged, the fastest kept, and a tuned format that is the one
// an explicit prepare_format with the chosen setting builds. A scripted timer makes the choice
// deterministic; reference_spmv_timer is checked for a plausible figure.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/formats/staircase_matrix.hpp"
#include "matrix_generators.hpp"
#include "registry/format_registry.hpp"

namespace fvmmini {
namespace {

FormatParameters with(std::initializer_list<std::pair<const char*, ParameterValue>> values) {
  FormatParameters p;
  for (const auto& [key, value] : values) p.set(key, value);
  return p;
}

const ParameterValue automatic = std::string("auto");

/// A timer that records each call and says `score(parameters)` milliseconds.
struct ScriptedTimer {
  std::function<double(const FormatParameters&)> score;
  std::vector<FormatParameters> calls{};
  SpmvTimer timer() {
    return {"scripted", [this](const std::string&, const StoredFormat& format, const FormatParameters& p, label) {
              calls.push_back(p);
              // the format timed is the one built with these parameters
              if (const auto* s = format.get_if<StaircaseMatrix>()) {
                EXPECT_EQ(s->slice_height, p.integer("sliceHeight"));
              }
              return score(p);
            }};
  }
};

TEST(FormatTuning, StaircaseTimesItsGridOnTheMatrixAndKeepsTheFastest) {
  const LduMatrix m = test::box_matrix(20, 20, 20, 3);  // 8000 rows
  ScriptedTimer t{[](const FormatParameters& p) {
    return std::abs(p.integer("sliceHeight") - 128) + (p.real("alpha") == 0.1 ? 0.0 : 1.0);
  }};
  const PreparedFormat p =
      prepare_format(m, "staircase", "cm", with({{"sliceHeight", automatic}, {"alpha", automatic}}), 1, t.timer());
  // --- sliceHeight 32..1024 x alpha {0.001, 0.01, 0.1}, alpha raised to sh/8000 and repeats merged:
  //     32: 0.004, 0.01, 0.1; 64: 0.008, 0.01, 0.1; 128: 0.016, 0.1; 256: 0.032, 0.1; 512: 0.064, 0.1;
  //     1024: 0.128
  ASSERT_TRUE(p.tuning.done());
  EXPECT_EQ(p.tuning.trials.size(), 13u);
  EXPECT_EQ(t.calls.size(), 13u);
  EXPECT_EQ(p.tuning.keys, (std::vector<std::string>{"sliceHeight", "alpha"}));
  EXPECT_EQ(p.tuning.timer, "scripted");
  // --- listed with the first key varying slowest; the chosen one is the fastest
  for (std::size_t i = 1; i < p.tuning.trials.size(); ++i) {
    const FormatParameters& a = p.tuning.trials[i - 1].parameters;
    const FormatParameters& b = p.tuning.trials[i].parameters;
    EXPECT_TRUE(a.integer("sliceHeight") < b.integer("sliceHeight") ||
                (a.integer("sliceHeight") == b.integer("sliceHeight") && a.real("alpha") < b.real("alpha")));
  }
  EXPECT_EQ(p.parameters.integer("sliceHeight"), 128);
  EXPECT_DOUBLE_EQ(p.parameters.real("alpha"), 0.1);
  EXPECT_EQ(p.parameters.word("launch"), "interleaved");
  EXPECT_EQ(p.tuning.trials[p.tuning.chosen].parameters, p.parameters);
  EXPECT_GE(p.tuning.seconds, 0.0);

  // --- the same format as asked for explicitly: numbering, layout, and a value refresh through the
  //     composed map
  PreparedFormat tuned = p;
  PreparedFormat given = prepare_format(m, "staircase", "cm", p.parameters);
  EXPECT_EQ(tuned.permutation.new_to_old, given.permutation.new_to_old);
  const auto& a = tuned.format.as<StaircaseMatrix>();
  const auto& b = given.format.as<StaircaseMatrix>();
  EXPECT_EQ(a.col, b.col);
  EXPECT_EQ(a.values, b.values);
  LduMatrix scaled = m;
  for (auto& d : scaled.diag) d *= 3.0;
  for (auto& u : scaled.upper) u *= 2.0;
  refresh_format_values(scaled, tuned);
  refresh_format_values(scaled, given);
  EXPECT_EQ(tuned.format.as<StaircaseMatrix>().values, given.format.as<StaircaseMatrix>().values);
  auto op = make_reference_operator(scaled, tuned);
  const auto x = test::random_vector(m.n_rows(), 5);
  std::vector<double> x_op(m.n_rows()), y_op(m.n_rows()), y(m.n_rows()), expected(m.n_rows());
  permute_to_new(tuned.permutation, x, x_op);
  op->multiply(x_op, y_op);
  permute_to_old(tuned.permutation, y_op, y);
  reference::ldu_spmv(scaled, x, expected);
  const auto scale = test::abs_row_scale(scaled, x);
  for (label i = 0; i < m.n_rows(); ++i) ASSERT_LE(std::abs(y[i] - expected[i]), 1e-12 * scale[i]) << "row " << i;

  // --- the log: the setup figure counts the tuning, then a line per setting, one chosen
  EXPECT_NE(describe(p).find(", tuning "), std::string::npos) << describe(p);
  EXPECT_NE(describe(p).find("over 13 settings)"), std::string::npos) << describe(p);
  const std::string lines = describe_tuning(p);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 14) << lines;
  EXPECT_NE(lines.find("staircase tuned: sliceHeight, alpha auto, each setting timed by the scripted"),
            std::string::npos)
      << lines;
  EXPECT_NE(lines.find("sliceHeight 128, alpha 0.1"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("chosen"), lines.rfind("chosen")) << lines;
}

TEST(FormatTuning, OnlyTheKeysSetToAutoAreTuned) {
  const LduMatrix m = test::box_matrix(20, 20, 20, 3);
  ScriptedTimer t{[](const FormatParameters& p) { return 1.0 / p.integer("sliceHeight"); }};
  const PreparedFormat p =
      prepare_format(m, "staircase", "rcm", with({{"sliceHeight", automatic}, {"alpha", 0.05}}), 1, t.timer());
  EXPECT_EQ(p.tuning.trials.size(), 6u);  // alpha 0.05 stays but for 1024 (0.128)
  for (const auto& call : t.calls)
    EXPECT_DOUBLE_EQ(call.real("alpha"), std::max(0.05, call.integer("sliceHeight") / 8000.0));
  EXPECT_EQ(p.parameters.integer("sliceHeight"), 1024);
  EXPECT_EQ(p.tuning.keys, std::vector<std::string>{"sliceHeight"});
}

TEST(FormatTuning, NothingToTuneOrNoTimerBuildsOnceWithDefaultsForAuto) {
  const LduMatrix m = test::box_matrix(12, 12, 12, 3);
  ScriptedTimer t{[](const FormatParameters&) { return 1.0; }};
  // --- nothing set to auto: the timer is not called
  const PreparedFormat explicit_keys = prepare_format(m, "sell", "none", with({{"chunkSize", 16.0}}), 1, t.timer());
  EXPECT_TRUE(t.calls.empty());
  EXPECT_FALSE(explicit_keys.tuning.done());
  EXPECT_EQ(describe_tuning(explicit_keys), "");
  EXPECT_EQ(describe(explicit_keys).find("tuning"), std::string::npos);
  // --- auto without a timer (a GAMG coarse level): the defaults
  const PreparedFormat untimed = prepare_format(m, "sell", "none", with({{"chunkSize", automatic}, {"sortWindow", automatic}}));
  EXPECT_FALSE(untimed.tuning.done());
  EXPECT_EQ(untimed.parameters.integer("chunkSize"), 32);
  EXPECT_EQ(untimed.parameters.integer("sortWindow"), 1024);
  EXPECT_EQ(resolve_format_parameters("staircase", with({{"sliceHeight", automatic}}), 1000).integer("sliceHeight"), 32);
}

TEST(FormatTuning, SellTunesChunkAndWindowAndEllwarpTunesTheThresholdOfK2Only) {
  const LduMatrix m = test::box_matrix(12, 12, 12, 3);
  ScriptedTimer sell{[](const FormatParameters& p) { return p.integer("chunkSize") == 64 && p.integer("sortWindow") == 32 ? 0.5 : 1.0; }};
  const PreparedFormat s =
      prepare_format(m, "sell", "rcm", with({{"chunkSize", automatic}, {"sortWindow", automatic}}), 1, sell.timer());
  EXPECT_EQ(s.tuning.trials.size(), 16u);
  EXPECT_EQ(s.parameters.integer("chunkSize"), 64);
  EXPECT_EQ(s.parameters.integer("sortWindow"), 32);

  ScriptedTimer k2{[](const FormatParameters& p) { return std::abs(p.integer("threshold") - 4) + 1.0; }};
  const PreparedFormat w =
      prepare_format(m, "ellwarp", "none", with({{"kernel", std::string("k2")}, {"threshold", automatic}}), 1, k2.timer());
  EXPECT_EQ(w.tuning.trials.size(), 5u);
  EXPECT_EQ(w.parameters.integer("threshold"), 4);
  // --- k1 reads no threshold: one setting
  ScriptedTimer k1{[](const FormatParameters&) { return 1.0; }};
  const PreparedFormat one = prepare_format(m, "ellwarp", "none", with({{"threshold", automatic}}), 1, k1.timer());
  EXPECT_EQ(one.tuning.trials.size(), 1u);
  EXPECT_EQ(k1.calls.size(), 1u);
}

TEST(FormatTuning, TheReferenceTimerTimesTheUnitsKernel) {
  const LduMatrix m = test::box_matrix(16, 16, 16, 3);
  const PreparedFormat p = prepare_format(m, "staircase", "cm", FormatParameters{});
  const SpmvTimer timer = reference_spmv_timer();
  const double ms = timer.milliseconds("staircase", p.format, p.parameters, m.n_rows());
  EXPECT_GT(ms, 0.0);
  EXPECT_LT(ms, 1e3);
  // --- a baseline with no reference kernel cannot be timed on the host
  const PreparedFormat baseline = prepare_format(m, "sell-cusparse", "none", FormatParameters{});
  EXPECT_THROW(timer.milliseconds("sell-cusparse", baseline.format, baseline.parameters, m.n_rows()),
               std::invalid_argument);
}

}  // namespace
}  // namespace fvmmini
