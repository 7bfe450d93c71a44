#pragma once
// The fvmmini case schema, version 1: every key a case file may hold, with its
// type, default, range and doc (docs/cases.md is the same in prose).

#include <string>
#include <vector>

#include "app/case_schema.hpp"
#include "app/time_schedule.hpp"

namespace fvmmini {

/// The case schema (built once, on first use).
const CaseSchema& case_schema();

/// The time section of the physics `types`: the keys of TimeControls and the rule that the
/// schedule they make can run (time_schedule.hpp's schedule_problem).
KeySpec& add_time_section(CaseSchema& schema, const std::vector<std::string>& types, TimeStep step,
                          const std::string& doc);

}  // namespace fvmmini
