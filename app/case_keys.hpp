#pragma once
// The fvmmini case schema, version 1: every key a case file may hold, with its
// type, default, range and doc (docs/cases.md is the same in prose).

#include "app/case_schema.hpp"

namespace fvmmini {

/// The case schema (built once, on first use).
const CaseSchema& case_schema();

}  // namespace fvmmini
