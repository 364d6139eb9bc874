// Issue 8 item 5: affect reacts to sensor faults. The same lockstep run (set B environment 0, one
// traversal) with and without an hwio fault script that, from t = 20 s, freezes the front long-range
// sensors at a close reading (a phantom obstacle that moves with the robot) and blinds the sensors beside
// them. The map then disagrees with what the robot meets, so the mismatch or error stimulus and with it
// surprise or confusion must end up higher than in the fault-free run.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "tests/testing/process.hpp"
#include "tools/stack/stack.hpp"

namespace limbic {
namespace {

struct Sample {
  double t = 0;
  std::vector<double> stimuli, emotions;
};

runtime::ServiceDefinition Observer(std::shared_ptr<std::vector<Sample>> samples) {
  return {"observer", "records the affect state", [samples](runtime::ServiceContext& ctx) {
            auto affect = ctx.AddInput<msg::AffectState>(ctx.Topic("affect"), runtime::Timing::kSameTick);
            ctx.AddStep({}, [=](const runtime::TickInfo& tick) {
              Sample s;
              s.t = tick.time_s;
              const auto* a = affect->Get();
              s.stimuli.assign(a->stimuli_damped()->begin(), a->stimuli_damped()->end());
              s.emotions.assign(a->emotions_combined()->begin(), a->emotions_combined()->end());
              samples->push_back(std::move(s));
            });
          }};
}

std::vector<Sample> RunObserved(const std::string& name, const std::string& fault_script) {
  stack::StackSpec spec;
  // The scenario world: generator seed 2008 puts undetectable obstacles on set G #0\'s route.
  spec.env_seed = 2008;
  spec.set = 'B';
  spec.index = 0;
  spec.iterations = 1;
  spec.max_ticks = 1500;  // 150 s: a faulted robot may never arrive
  if (!fault_script.empty()) spec.options.push_back("hwio.fault_script=" + fault_script);
  auto samples = std::make_shared<std::vector<Sample>>();
  auto services = stack::BuildStack(spec);
  services.front().options.participants.push_back("r1/observer");
  runtime::HostedService observer{Observer(samples), {}};
  observer.options.robot = spec.robot;
  services.push_back(observer);
  std::atomic<bool> stop{false};
  EXPECT_EQ(runtime::RunInProcess("inproc://fault-affect-" + name, services, stop), 0);
  return *samples;
}

// Mean of f over samples with t in [from, until).
template <typename F>
double MeanOver(const std::vector<Sample>& s, double from, double until, F f) {
  double sum = 0;
  int n = 0;
  for (const auto& x : s) {
    if (x.t >= from && x.t < until) {
      sum += f(x);
      ++n;
    }
  }
  return n ? sum / n : 0.0;
}

// Indices (messages/affect.fbs): stimuli 6 mismatch, 8 error; emotions 5 surprise, 6 confusion.
TEST(FaultAffectSystem, StuckAndDroppedFrontSensorsRaiseMismatchAndConfusion) {
  testing::TempDir dir;
  const std::string script = dir / "faults.yaml";
  {
    std::ofstream out(script);
    out << "faults:\n"
           "  - {id: front-stuck, kind: sensor_stuck, sensor_id: 0, start: 20, stuck_range: 0.6}\n"
           "  - {id: left-stuck, kind: sensor_stuck, sensor_id: 1, start: 20, stuck_range: 0.6}\n"
           "  - {id: right-stuck, kind: sensor_stuck, sensor_id: 9, start: 20, stuck_range: 0.6}\n"
           "  - {id: short-front-dropout, kind: sensor_dropout, sensor_id: 10, start: 20}\n";
  }
  const auto clean = RunObserved("clean", "");
  const auto faulted = RunObserved("faulted", script);
  ASSERT_GT(clean.size(), 250u);
  ASSERT_GT(faulted.size(), 250u);
  const double until = std::min(clean.back().t, faulted.back().t) + 1e-9;
  std::cout << "clean run: " << clean.size() << " ticks to t = " << clean.back().t
            << " s; faulted run: " << faulted.size() << " ticks to t = " << faulted.back().t << " s\n";
  auto report = [&](const char* what, auto f) {
    const double a = MeanOver(clean, 20.0, until, f), b = MeanOver(faulted, 20.0, until, f);
    const double a_end = f(clean.back()), b_end = f(faulted.back());
    std::cout << what << ": mean over [20 s, " << until << " s) clean " << a << ", faulted " << b << "; end clean "
              << a_end << ", faulted " << b_end << "\n";
    return std::pair<double, double>{a, b};
  };
  const auto mismatch = report("mismatch", [](const Sample& x) { return x.stimuli[6]; });
  const auto error = report("error", [](const Sample& x) { return x.stimuli[8]; });
  const auto surprise = report("surprise", [](const Sample& x) { return x.emotions[5]; });
  const auto confusion = report("confusion", [](const Sample& x) { return x.emotions[6]; });
  // Before the fault both runs are the same run (lockstep, same seeds).
  EXPECT_NEAR(MeanOver(clean, 0, 19.9, [](const Sample& x) { return x.stimuli[6]; }),
              MeanOver(faulted, 0, 19.9, [](const Sample& x) { return x.stimuli[6]; }), 1e-9);
  EXPECT_TRUE(mismatch.second > mismatch.first + 0.02 || error.second > error.first + 0.02)
      << "mismatch " << mismatch.first << " -> " << mismatch.second << ", error " << error.first << " -> "
      << error.second;
  EXPECT_TRUE(surprise.second > surprise.first + 0.01 || confusion.second > confusion.first + 0.01)
      << "surprise " << surprise.first << " -> " << surprise.second << ", confusion " << confusion.first << " -> "
      << confusion.second;
}

}  // namespace
}  // namespace limbic
