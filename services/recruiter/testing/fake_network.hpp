// A tiny lossless-by-default network of Recruiters for protocol tests: every robot ticks, messages are
// delivered within the step (broadcasts to all, addressed ones to the recipient), robots drive to
// their destination at their speed, and a predicate may drop chosen transmissions.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "services/recruiter/recruiter.hpp"

namespace limbic::recruit::testing {

class FakeNetwork {
 public:
  Recruiter& Add(RobotId id, Position p, RecruiterOptions options = {}) {
    robots_.push_back(std::make_unique<Recruiter>(id, options));
    robots_.back()->SetPosition(p);
    return *robots_.back();
  }
  // Return true to drop a transmission (it is still logged as sent).
  std::function<bool(const Message&)> drop;
  std::vector<Message> sent;
  double now = 0.0;
  double tick = 0.1;
  double arrival_radius = 0.5;

  void Exchange() {
    for (int round = 0; round < 64; ++round) {
      std::vector<Message> batch;
      for (auto& r : robots_)
        for (Message& m : r->TakeOutbox()) batch.push_back(m);
      if (batch.empty()) return;
      for (const Message& m : batch) {
        sent.push_back(m);
        if (drop && drop(m)) continue;
        for (auto& r : robots_) {
          if (r->id() == m.sender) continue;
          if (m.recipient != kNoRecipient && m.recipient != r->id()) continue;
          r->OnMessage(m, now);
        }
      }
    }
  }

  void Step() {
    now += tick;
    for (auto& r : robots_) {
      if (auto dest = r->destination()) {
        const Position p = r->position();
        const double d = Distance(p, *dest);
        const double f = d > 0 ? std::min(1.0, r->options().speed * tick / d) : 1.0;
        r->SetPosition({p.x + f * (dest->x - p.x), p.y + f * (dest->y - p.y)});
        if (Distance(r->position(), *dest) <= arrival_radius + 1e-9) r->NotifyArrived(now);
      }
    }
    for (auto& r : robots_) r->Tick(now);
    Exchange();
  }

  // Steps until `done` or `limit_s` of simulated time; returns whether `done` held.
  bool RunUntil(const std::function<bool()>& done, double limit_s) {
    Exchange();
    const double end = now + limit_s;
    while (now < end) {
      if (done()) return true;
      Step();
    }
    return done();
  }

  int Count(MsgType type) const {
    int n = 0;
    for (const Message& m : sent) n += m.type == type;
    return n;
  }

 private:
  std::vector<std::unique_ptr<Recruiter>> robots_;
};

}  // namespace limbic::recruit::testing
