#pragma once
// The device steps' initial fields against FlowOperators::initial_state (the host's).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "discretisation/incompressible/flow_step.hpp"

namespace fvmmini::testing {

/// A step's fields before its first advance: U, p and grad p the host's exactly, the fluxes to
/// the last bits (a contracted multiply-add on the device), the Courant number for dt to 1e-12.
inline void expect_initial_state(const FlowOperators& operators, FlowStep& step, double dt) {
  const FlowState expected = operators.initial_state();
  const FlowState& made = step.state();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(made.velocity[i], expected.velocity[i]) << "U component " << i;
  EXPECT_EQ(made.pressure, expected.pressure);
  ASSERT_EQ(made.pressure_gradient.size(), expected.pressure_gradient.size());
  for (const Vec3& g : made.pressure_gradient) ASSERT_EQ(mag(g), 0.0);
  ASSERT_EQ(made.flux.size(), expected.flux.size());
  double scale = 0.0, difference = 0.0;
  for (std::size_t f = 0; f < made.flux.size(); ++f) {
    scale = std::max(scale, std::abs(expected.flux[f]));
    difference = std::max(difference, std::abs(made.flux[f] - expected.flux[f]));
  }
  EXPECT_LE(difference, 1e-14 * scale);
  const CourantNumber expected_co = operators.courant_number(expected.flux, dt), co = step.courant_number(dt);
  EXPECT_NEAR(co.max, expected_co.max, 1e-12 * expected_co.max);
  EXPECT_NEAR(co.mean, expected_co.mean, 1e-12 * expected_co.mean);
}

}  // namespace fvmmini::testing
