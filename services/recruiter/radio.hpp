// The radio between robots (spec affective-recruitment §5.3, §9.2): every recruitment transmission
// goes through it. It counts every attempt (per robot and type, dropped ones included: §5.3 [I],
// §10 item 5b), drops with i.i.d. probability p per transmission (one decision per transmission: a
// dropped broadcast is lost to all, §10 item 6) or per receiver, optionally with a Gilbert–Elliott
// burst model, and delivers after an optional latency to the robots within range. In unicast mode a
// HELP or RESPONDER becomes one transmission per other team member (§5.3 unicast, [I] for RESPONDER),
// each with its own drop decision. Seeded; transport-free.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "services/recruiter/protocol.hpp"

namespace limbic::recruit {

struct RadioOptions {
  enum class LossModel { kIid, kGilbertElliott };
  enum class Granularity { kPerTransmission, kPerReceiver };
  double loss = 0.0;  // i.i.d. drop probability p
  LossModel loss_model = LossModel::kIid;
  Granularity granularity = Granularity::kPerTransmission;
  // Gilbert–Elliott: two states; per transmission, first a state transition, then a drop with the
  // state's loss probability.
  double ge_p_good_to_bad = 0.05;
  double ge_p_bad_to_good = 0.5;
  double ge_loss_good = 0.0;
  double ge_loss_bad = 0.8;
  double latency_s = 0.0;                                  // fixed delivery delay
  double latency_jitter_s = 0.0;                           // plus uniform [0, jitter)
  double range = std::numeric_limits<double>::infinity();  // receivers farther than this hear nothing
  bool unicast = false;
  uint64_t seed = 7;
};
RadioOptions::LossModel ParseLossModel(const std::string& text);  // "iid" | "gilbert_elliott"

// One copy of a message on its way to one receiver.
struct Delivery {
  double at_s = 0.0;
  RobotId receiver = 0;
  Message message;
};

// Transmission counts (M1 and the live demo's "who transmitted").
struct RadioCounts {
  std::array<uint64_t, kMsgTypeCount> attempts{};  // every attempt, dropped or not
  std::array<uint64_t, kMsgTypeCount> dropped{};   // lost to every receiver (or, per receiver, copies lost)
  std::map<RobotId, std::array<uint64_t, kMsgTypeCount>> attempts_by_robot;
  uint64_t out_of_range = 0;  // receiver copies not delivered because of range
  uint64_t total_attempts() const;
};

class Radio {
 public:
  // Throws std::invalid_argument for a loss outside [0, 1], negative latency or range.
  explicit Radio(const RadioOptions& options);

  // Sends `m` from `sender_position` at `now_s` to every robot of `team` (id, position) other than the
  // sender (broadcast), or to m.recipient (addressed). The medium is physically a broadcast, but a
  // copy addressed to another robot would be dropped by its receiver anyway, so only the recipient gets
  // one here.
  void Transmit(const Message& m, double now_s, Position sender_position,
                const std::vector<std::pair<RobotId, Position>>& team);
  // Copies due at or before `now_s`, in send order.
  std::vector<Delivery> TakeDue(double now_s);
  bool idle() const { return queue_.empty(); }

  const RadioCounts& counts() const { return counts_; }
  const RadioOptions& options() const { return options_; }

 private:
  bool Drop();
  void Count(const Message& m);
  void Enqueue(const Message& m, RobotId receiver, double now_s);

  RadioOptions options_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
  bool ge_bad_ = false;
  uint64_t order_ = 0;
  struct Queued {
    Delivery delivery;
    uint64_t order;
  };
  std::vector<Queued> queue_;
  RadioCounts counts_;
};

}  // namespace limbic::recruit
