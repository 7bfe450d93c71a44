// test_formats.cpp on the reference backend.

#include <cmath>

#include "tests/formats/format_backend.hpp"

namespace fvmmini::test {
namespace {

class ReferenceMatrix final : public BackendMatrix {
 public:
  ReferenceMatrix(const LduMatrix& m, PreparedFormat prepared) : op_(make_reference_operator(m, std::move(prepared))) {}
  void multiply(std::span<const double> x, std::span<double> y) override {
    std::fill(y.begin(), y.end(), std::nan(""));
    op_->multiply(x, y);
  }
  double multiply_dot(std::span<const double> x, std::span<double> y) override {
    std::fill(y.begin(), y.end(), std::nan(""));
    return op_->multiply_dot(x, y);
  }
  void refresh(const LduMatrix& m) override { op_->refresh_values(m); }
  const PreparedFormat& prepared() const override { return op_->prepared(); }

 private:
  std::unique_ptr<ReferenceOperator> op_;
};

}  // namespace

const FormatBackend& format_backend() {
  static const FormatBackend backend{
      "reference", [] { return std::string(); },
      [](const std::string& format) { return static_cast<bool>(find_format(format).multiply); },
      [](const LduMatrix& m, PreparedFormat prepared) -> std::unique_ptr<BackendMatrix> {
        return std::make_unique<ReferenceMatrix>(m, std::move(prepared));
      }};
  return backend;
}

}  // namespace fvmmini::test
