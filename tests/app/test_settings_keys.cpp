// The keys each settings struct declares once (app/settings_keys.hpp): the schema's defaults are the
// struct's, every key reads into its own member, a value out of range is refused naming its key.

#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "app/case_error.hpp"
#include "app/case_loader.hpp"
#include "app/settings_keys.hpp"
#include "app/time_schedule.hpp"
#include "discretisation/incompressible/flow_diagnostics.hpp"
#include "discretisation/incompressible/flow_operators.hpp"
#include "discretisation/scalar_problem.hpp"
#include "linalg/solver_settings.hpp"
#include "temp_folder.hpp"

namespace fvmmini {
namespace {

/// A key visitor that writes each member's value as the schema writes a default, required keys too.
struct MemberTexts {
  template <KeyMember M>
  KeyConstraints add(const std::string& name, const M& member, const std::string&) {
    return put(name, member_text(member));
  }
  KeyConstraints boolean_word(const std::string& name, bool member, const std::string&, const std::string& off,
                              const std::string& on) {
    return put(name, member ? on : off);
  }
  template <class E>
  KeyConstraints enumeration(const std::string& name, E member, const std::string&, const std::vector<std::string>&,
                             std::type_identity_t<E (*)(const std::string&)>,
                             std::type_identity_t<const std::string& (*)(E)> word) {
    return put(name, word(member));
  }
  KeyConstraints put(const std::string& name, std::string text) {
    texts[name] = std::move(text);
    return KeyConstraints(nullptr);
  }
  std::map<std::string, std::string> texts;
};

/// Each declared key's value in `settings` (name -> YAML text).
template <class Settings, class Declare>
std::map<std::string, std::string> key_texts(Settings settings, Declare declare) {
  MemberTexts keys;
  declare(keys, settings);
  return keys.texts;
}

/// A value of `key` unlike its default, and unlike any other key's (the index makes numbers distinct).
std::string other_value(const KeySpec& key, int index) {
  const std::string text = key.default_text().value_or("0");
  switch (key.type()) {
    case KeyType::boolean: return text == "true" ? "false" : "true";
    case KeyType::integer: return std::to_string(std::stoll(text) + 1 + index);
    case KeyType::real: return default_text(std::stod(text) + 1.5 + index);
    case KeyType::real3: return default_text(Vec3{1.0 + index, 2, 3});
    case KeyType::enumeration:
      for (const auto& word : key.allowed_values())
        if (word != text) return word;
      return text;  // one word only (solver: CG)
    default: break;
  }
  ADD_FAILURE() << key.name() << ": a type no settings key has";
  return text;
}

/// Read every declared key set to its other_value() into a default-built Settings: each member
/// then holds what its own key said, so no key reads into another key's member or none.
template <class Settings, class Declare>
void expect_every_key_sets_its_member(Declare declare) {
  KeySpec declared("scratch", KeyType::map, "");
  SchemaKeys schema_keys(declared);
  Settings defaults;
  declare(schema_keys, defaults);
  ASSERT_FALSE(declared.children().empty());

  YAML::Node map;
  std::map<std::string, std::string> written;
  int index = 0;
  for (const auto& key : declared.children()) {
    written[key->name()] = other_value(*key, index++);
    map[key->name()] = YAML::Load(written[key->name()]);
  }
  YAML::Node tree;
  tree["settings"] = map;
  const ResolvedCase resolved("case.yaml", tree, {});

  Settings settings;
  CaseKeys case_keys(resolved, "settings");
  declare(case_keys, settings);
  EXPECT_EQ(key_texts(settings, declare), written);
}

TEST(SettingsKeys, EveryKeySetsItsOwnMember) {
  expect_every_key_sets_its_member<SolverSettings>([](auto& keys, auto& s) { declare_keys(keys, s); });
  expect_every_key_sets_its_member<TimeControls>([](auto& keys, auto& s) { declare_keys(keys, s, TimeStep::adjustable); });
  expect_every_key_sets_its_member<SteadyStateSettings>([](auto& keys, auto& s) { declare_keys(keys, s); });
  expect_every_key_sets_its_member<IncompressibleSettings>([](auto& keys, auto& s) { declare_keys(keys, s); });
  expect_every_key_sets_its_member<IncompressibleSettings>(
      [](auto& keys, auto& s) { declare_reference_cell_keys(keys, s); });
  expect_every_key_sets_its_member<ScalarProblemSettings>([](auto& keys, auto& s) { declare_physics_keys(keys, s); });
  expect_every_key_sets_its_member<ScalarProblemSettings>(
      [](auto& keys, auto& s) { declare_discretisation_keys(keys, s); });
}

TEST(SettingsKeys, AMapWithoutKeysLeavesTheDefaults) {
  YAML::Node tree;
  tree["steadyState"] = YAML::Node(YAML::NodeType::Map);
  const ResolvedCase resolved("case.yaml", tree, {});
  const auto declare = [](auto& keys, auto& s) { declare_keys(keys, s); };
  EXPECT_EQ(key_texts(read_settings<SteadyStateSettings>(resolved, "steadyState"), declare),
            key_texts(SteadyStateSettings{}, declare));
}

/// The resolved case of a shipped case holds the schema's defaults; read back they are the
/// struct's defaults (the default text round-trips).
TEST(SettingsKeys, TheSchemaDefaultsReadBackAsTheStructDefaults) {
  const ResolvedCase flow = load_case(FVMMINI_FIXTURES_DIR "/../../cases/cavity.yaml", {});
  const auto steady = [](auto& keys, auto& s) { declare_keys(keys, s); };
  // cavity.yaml sets stop and both tolerances; consecutiveSteps is the default
  EXPECT_EQ(key_texts(read_settings<SteadyStateSettings>(flow, "steadyState"), steady).at("consecutiveSteps"),
            key_texts(SteadyStateSettings{}, steady).at("consecutiveSteps"));
  const ResolvedCase poisson = load_case(FVMMINI_FIXTURES_DIR "/../../cases/poisson-box.yaml", {});
  const auto gamg = [](auto& keys, auto& s) { declare_keys(keys, s); };
  const ResolvedCase with_gamg =
      load_case(FVMMINI_FIXTURES_DIR "/../../cases/poisson-box.yaml", {"solvers.T.preconditioner=GAMG"});
  EXPECT_EQ(key_texts(read_settings<GamgSettings>(with_gamg, "solvers.T"), gamg), key_texts(GamgSettings{}, gamg));
  ScalarProblemSettings read;
  CaseKeys discretisation(poisson, "discretisation");
  const auto declare = [](auto& keys, auto& s) { declare_discretisation_keys(keys, s); };
  declare(discretisation, read);
  EXPECT_EQ(key_texts(read, declare), key_texts(ScalarProblemSettings{}, declare));
}

/// The schema declares the reference cell keys once, with ScalarProblemSettings' defaults.
TEST(SettingsKeys, BothPhysicsDefaultTheReferenceCellAlike) {
  const auto declare = [](auto& keys, auto& s) { declare_reference_cell_keys(keys, s); };
  EXPECT_EQ(key_texts(IncompressibleSettings{}, declare), key_texts(ScalarProblemSettings{}, declare));
}

TEST(SettingsKeys, DefaultsAreWrittenAsACaseWritesThem) {
  EXPECT_EQ(default_text(1e-6), "1e-6");
  EXPECT_EQ(default_text(2.5e-10), "2.5e-10");
  EXPECT_EQ(default_text(1e20), "1e+20");
  EXPECT_EQ(default_text(1.3), "1.3");
  EXPECT_EQ(default_text(0.0), "0");
  EXPECT_EQ(default_text(100.0), "100");
  EXPECT_EQ(default_text(Vec3{0, 0.5, -1}), "[0, 0.5, -1]");
}

TEST(SettingsKeys, AValueItsMemberCannotHoldIsAProgrammingError) {
  YAML::Node tree;
  tree["steadyState"]["consecutiveSteps"] = "4294967296";
  const ResolvedCase resolved("case.yaml", tree, {});
  try {
    read_settings<SteadyStateSettings>(resolved, "steadyState");
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("steadyState.consecutiveSteps"), std::string::npos) << e.what();
  }
}

TEST(SettingsKeys, AValueOutOfRangeIsRefusedNamingItsKey) {
  const std::string cavity = FVMMINI_FIXTURES_DIR "/../../cases/cavity.yaml";
  for (const std::string set :
       {"steadyState.consecutiveSteps=0", "steadyState.residualTolerance=0", "time.maxCo=-1", "time.logInterval=0",
        "physics.nu=0", "solvers.p.relTol=1", "discretisation.nonOrthogonalTolerance=0",
        "discretisation.referenceCell=-1"}) {
    const std::string key = set.substr(0, set.find('='));
    try {
      load_case(cavity, {set});
      ADD_FAILURE() << set << " was accepted";
    } catch (const CaseError& e) {
      EXPECT_NE(std::string(e.what()).find(key + " = "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
    }
  }
  try {
    load_case(cavity, {"solvers.p.preconditioner=GAMG", "solvers.p.mergeLevels=5"});
    ADD_FAILURE() << "mergeLevels 5 was accepted";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("solvers.p.mergeLevels = 5 is out of range (must be >= 1 and <= 4)"),
              std::string::npos)
        << e.what();
  }
}

TEST(SettingsKeys, NonOrthogonalNotConvergedTakesOnlyItsTwoWords) {
  const std::string poisson = FVMMINI_FIXTURES_DIR "/../../cases/poisson-box.yaml";
  EXPECT_THROW(load_case(poisson, {"discretisation.nonOrthogonalNotConverged=errror"}), CaseError);
  const ResolvedCase c = load_case(poisson, {"discretisation.nonOrthogonalNotConverged=error"});
  ScalarProblemSettings s;
  CaseKeys keys(c, "discretisation");
  declare_discretisation_keys(keys, s);
  EXPECT_TRUE(s.non_orthogonal_must_converge);
}

}  // namespace
}  // namespace fvmmini
