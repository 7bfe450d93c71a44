#pragma once
// A field no patch fixes (every patch zeroGradient) is pinned at one cell. Every physics reads
// where and to what from the same two keys, discretisation.referenceCell and referenceValue.

#include <limits>

namespace fvmmini {

/// The two keys into settings.reference_cell and settings.reference_value (app/settings_keys.hpp).
template <class Keys, class Settings>
void declare_reference_cell_keys(Keys& keys, Settings& settings) {
  keys.add("referenceCell", settings.reference_cell, "the cell whose value is pinned when no patch fixes one")
      .min(0)
      .max(std::numeric_limits<int>::max());
  keys.add("referenceValue", settings.reference_value, "the value at referenceCell");
}

}  // namespace fvmmini
