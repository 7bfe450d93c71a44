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

TEST(TimeSchedule, StepsFarBelowTheSpacingOfTheStartTimeAreAllTaken) {
  // doubles at 1e17 are 16 apart: start + 1 == start, yet the clock takes 160 steps of 1 s
  const double start = 1e17;
  TimeSchedule clock(start, start + 160.0, 40.0);
  std::vector<double> writes;
  while (!clock.finished() && clock.step() < 1000) {
    EXPECT_DOUBLE_EQ(clock.advance(1.0), 1.0);
    if (clock.at_write_time()) writes.push_back(clock.time() - start);
  }
  EXPECT_EQ(clock.step(), 160);
  EXPECT_EQ(writes, (std::vector<double>{32.0, 80.0, 128.0, 160.0}));  // start + k 40, rounded to doubles
  // a changed step cuts the rest from where the run is (2.5 s in), not from the rounded time
  TimeSchedule adjusted(start, start + 160.0, 0.0);
  for (const double wanted : {2.0, 0.5, 2.0}) adjusted.advance(wanted);
  EXPECT_DOUBLE_EQ(adjusted.next_delta_t(2.0), 157.5 / 79);
  EXPECT_THROW(adjusted.advance(1e-300), std::runtime_error);  // 10^302 steps: it cannot advance time
}

TEST(TimeSchedule, ControlsThatCannotAdvanceTimeAreNamed) {
  TimeControls t;
  t.end = 0.5;
  t.delta_t = 0.005;
  t.write_interval = 0.05;
  EXPECT_FALSE(schedule_problem(t, TimeStep::fixed));
  t.write_interval = 1e-300;
  ASSERT_TRUE(schedule_problem(t, TimeStep::fixed));
  EXPECT_EQ(schedule_problem(t, TimeStep::fixed)->key, "writeInterval");
  EXPECT_EQ(schedule_problem(t, TimeStep::fixed)->message,
            "time.writeInterval = 1e-300 cannot advance time: it makes 5e+299 write times in endTime - startTime = 0.5 "
            "(at most 1000000)");
  t.write_interval = 0.05;
  t.delta_t = 1e-300;
  EXPECT_EQ(schedule_problem(t, TimeStep::fixed)->key, "deltaT");
  t.max_co = 0.5;  // the first step only: maxCo adjusts it
  EXPECT_FALSE(schedule_problem(t, TimeStep::adjustable));
  t.start = 1.0;
  EXPECT_EQ(schedule_problem(t, TimeStep::adjustable)->key, "endTime");
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
