#pragma once
// Small builders for the hand-worked layout tests of the format structs.

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/formats/format_common.hpp"

namespace fvmmini::test {

using I64 = std::vector<std::int64_t>;
using Labels = std::vector<label>;
using Rows = std::vector<std::vector<std::pair<label, double>>>;

/// A CSR from explicit rows of (column, value), in the order given.
inline CsrMatrix csr_from_rows(const Rows& rows) {
  CsrMatrix a;
  a.n_rows = static_cast<label>(rows.size());
  for (const auto& r : rows) {
    for (auto [c, v] : r) {
      a.col.push_back(c);
      a.values.push_back(v);
    }
    a.row_ptr.push_back(static_cast<std::int64_t>(a.col.size()));
  }
  return a;
}

inline Labels concat(std::initializer_list<Labels> parts) {
  Labels out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

/// from, from + 1, .. (count values).
inline Labels iota_labels(label from, label count) {
  Labels out(count);
  for (label i = 0; i < count; ++i) out[i] = from + i;
  return out;
}

/// count padding columns.
inline Labels padding(label count) { return Labels(count, padding_column); }

}  // namespace fvmmini::test
