#pragma once
// Whether a GPU test that finds no device must fail rather than skip: FVMMINI_REQUIRE_GPU=1
// (tools/gpu-check sets it), so that a GPU run cannot pass by skipping.

#include <cstdlib>
#include <string>

namespace fvmmini::test {

inline bool gpu_required() {
  const char* require = std::getenv("FVMMINI_REQUIRE_GPU");
  return require && std::string(require) == "1";
}

}  // namespace fvmmini::test
