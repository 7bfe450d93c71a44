// The run's clock: a fixed deltaT gives exactly the requested steps, write times and endTime are
// hit to the last bit, a step is never longer than the one asked for, and the time to a write is
// cut into equal steps.

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "app/time_schedule.hpp"

namespace fvmmini {
namespace {

TEST(TimeSchedule, AFixedStepGivesExactlyTheRequestedStepsAndHitsEveryWriteTime) {
  // 0.001 is not exact in binary: summing it 15000 times overshoots by round-off
  TimeSchedule clock(0.0, 15.0, 5.0);
  std::vector<double> writes;
  while (!clock.finished()) {
    const double dt = clock.advance(0.001);
    ASSERT_NEAR(dt, 0.001, 1e-14);  // the round-off of the times before it
    if (clock.at_write_time()) writes.push_back(clock.time());
  }
  EXPECT_EQ(clock.step(), 15000);
  EXPECT_EQ(writes, (std::vector<double>{5.0, 10.0, 15.0}));
  EXPECT_THROW(clock.advance(0.001), std::logic_error);
}

TEST(TimeSchedule, AnAdjustedStepIsCutIntoEqualPartsToLandOnTheWriteTime) {
  TimeSchedule clock(1.0, 2.0, 0.25);
  // 0.1 does not divide 0.25: three equal steps of 0.25 / 3
  EXPECT_DOUBLE_EQ(clock.next_delta_t(0.1), 0.25 / 3);
  std::vector<double> writes;
  double wanted = 0.03;
  while (!clock.finished()) {
    const double dt = clock.advance(wanted);
    EXPECT_LE(dt, wanted * (1 + 1e-12));
    if (clock.at_write_time()) writes.push_back(clock.time());
    wanted *= 1.1;  // as maxCo lets it grow
  }
  EXPECT_EQ(writes, (std::vector<double>{1.25, 1.5, 1.75, 2.0}));
}

TEST(TimeSchedule, AWriteIntervalLongerThanTheRunWritesAtEndTimeOnly) {
  TimeSchedule clock(0.0, 0.3, 1.0);
  int writes = 0;
  while (!clock.finished()) {
    clock.advance(0.1);
    writes += clock.at_write_time();
  }
  EXPECT_EQ(clock.step(), 3);
  EXPECT_EQ(clock.time(), 0.3);
  EXPECT_EQ(writes, 1);
}

TEST(TimeSchedule, DividedByTellsWhetherFixedStepsLandOnEveryTarget) {
  EXPECT_TRUE(TimeSchedule(0.0, 0.5, 0.05).divided_by(0.005));
  EXPECT_FALSE(TimeSchedule(0.0, 0.5, 0.05).divided_by(0.003));
  EXPECT_FALSE(TimeSchedule(0.0, 0.51, 0.05).divided_by(0.02));
  EXPECT_THROW(TimeSchedule(1.0, 1.0, 0.1), std::invalid_argument);
}

TEST(TimeSchedule, MaxCoScalesTheStepAsOpenFoamsSetDeltaT) {
  TimeControls t;
  t.max_co = 0.5;
  EXPECT_DOUBLE_EQ(adjust_delta_t(0.01, 0.25, t), 0.012);  // growth capped at 20 %
  EXPECT_DOUBLE_EQ(adjust_delta_t(0.01, 1.0, t), 0.005);   // shrinks to maxCo at once
  t.max_delta_t = 0.004;
  EXPECT_DOUBLE_EQ(adjust_delta_t(0.01, 1.0, t), 0.004);
  t.max_co = 0.0;
  EXPECT_DOUBLE_EQ(adjust_delta_t(0.01, 1.0, t), 0.01);
}

}  // namespace
}  // namespace fvmmini
