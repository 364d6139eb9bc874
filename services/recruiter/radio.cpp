#include "services/recruiter/radio.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace limbic::recruit {

RadioOptions::LossModel ParseLossModel(const std::string& text) {
  if (text == "iid") return RadioOptions::LossModel::kIid;
  if (text == "gilbert_elliott") return RadioOptions::LossModel::kGilbertElliott;
  throw std::invalid_argument("unknown loss model '" + text + "' (iid, gilbert_elliott)");
}

uint64_t RadioCounts::total_attempts() const {
  uint64_t total = 0;
  for (uint64_t a : attempts) total += a;
  return total;
}

Radio::Radio(const RadioOptions& options) : options_(options), rng_(options.seed) {
  const auto probability = [](double p) { return std::isfinite(p) && p >= 0.0 && p <= 1.0; };
  for (double p :
       {options.loss, options.ge_p_good_to_bad, options.ge_p_bad_to_good, options.ge_loss_good, options.ge_loss_bad}) {
    if (!probability(p)) throw std::invalid_argument("radio loss probabilities must be in [0, 1]");
  }
  if (!std::isfinite(options.latency_s) || options.latency_s < 0.0 || !std::isfinite(options.latency_jitter_s) ||
      options.latency_jitter_s < 0.0)
    throw std::invalid_argument("radio latency must be a non-negative number");
  if (std::isnan(options.range) || options.range < 0.0) throw std::invalid_argument("radio range must be >= 0");
}

bool Radio::Drop() {
  if (options_.loss_model == RadioOptions::LossModel::kGilbertElliott) {
    const double r = unit_(rng_);
    ge_bad_ = ge_bad_ ? !(r < options_.ge_p_bad_to_good) : r < options_.ge_p_good_to_bad;
    return unit_(rng_) < (ge_bad_ ? options_.ge_loss_bad : options_.ge_loss_good);
  }
  // §5.3 [D]: "a random number r ... if r was greater than the communication failure rate, then the
  // message would be sent; otherwise, it would be dropped". Skip the draw at p = 0 so lossless runs
  // leave the generator alone.
  if (options_.loss <= 0.0) return false;
  return unit_(rng_) <= options_.loss;
}

void Radio::Count(const Message& m) {
  const auto t = static_cast<size_t>(m.type);
  ++counts_.attempts[t];
  ++counts_.attempts_by_robot[m.sender][t];
}

void Radio::Enqueue(const Message& m, RobotId receiver, double now_s) {
  double at = now_s + options_.latency_s;
  if (options_.latency_jitter_s > 0.0) at += options_.latency_jitter_s * unit_(rng_);
  queue_.push_back({{at, receiver, m}, order_++});
}

void Radio::Transmit(const Message& m, double now_s, Position sender_position,
                     const std::vector<std::pair<RobotId, Position>>& team) {
  const bool broadcast = m.recipient == kNoRecipient;
  const bool per_copy = options_.unicast && broadcast;  // unicast: one transmission per other member
  const bool per_receiver = options_.granularity == RadioOptions::Granularity::kPerReceiver;
  bool dropped_for_all = false;
  if (!per_copy) {
    Count(m);
    if (!per_receiver) {
      dropped_for_all = Drop();
      if (dropped_for_all) ++counts_.dropped[static_cast<size_t>(m.type)];
    }
  }
  for (const auto& [id, pos] : team) {
    if (id == m.sender) continue;
    if (!broadcast && id != m.recipient) continue;
    if (per_copy) {
      Message copy = m;
      Count(copy);
      if (Drop()) {
        ++counts_.dropped[static_cast<size_t>(m.type)];
        continue;
      }
    } else if (dropped_for_all) {
      continue;
    } else if (per_receiver && Drop()) {
      ++counts_.dropped[static_cast<size_t>(m.type)];
      continue;
    }
    if (Distance(sender_position, pos) > options_.range) {
      ++counts_.out_of_range;
      continue;
    }
    Enqueue(m, id, now_s);
  }
}

std::vector<Delivery> Radio::TakeDue(double now_s) {
  std::vector<Queued> due;
  auto split = std::stable_partition(queue_.begin(), queue_.end(),
                                     [&](const Queued& q) { return q.delivery.at_s > now_s + 1e-9; });
  due.assign(std::make_move_iterator(split), std::make_move_iterator(queue_.end()));
  queue_.erase(split, queue_.end());
  std::sort(due.begin(), due.end(), [](const Queued& a, const Queued& b) {
    return a.delivery.at_s != b.delivery.at_s ? a.delivery.at_s < b.delivery.at_s : a.order < b.order;
  });
  std::vector<Delivery> out;
  out.reserve(due.size());
  for (auto& q : due) out.push_back(std::move(q.delivery));
  return out;
}

}  // namespace limbic::recruit
