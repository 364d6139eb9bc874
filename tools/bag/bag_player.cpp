#include "tools/bag/bag_player.hpp"

#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>

namespace limbic::bag {

Player::Player(std::vector<std::string> files, PlayOptions options, SendFn send, TickFn tick)
    : files_(std::move(files)),
      options_(std::move(options)),
      send_(std::move(send)),
      tick_fn_(std::move(tick)),
      timer_(options_.rate) {
  CheckOptions(options_);
  if (options_.drive_clock && !tick_fn_) throw std::invalid_argument("bag::Player: drive_clock needs a tick function");
  // Decided once per channel, not per message.
  options_.read.channels = [caller = std::move(options_.read.channels)](const std::string& topic,
                                                                        const std::string& encoding) {
    return IsPlayable(topic, encoding) && (!caller || caller(topic, encoding));
  };
  // Chunks are decompressed and checked on a second thread ahead of the sending one: at --rate 0
  // the sender does little more than send, and a paced playback is not held up by a chunk's
  // decompression (about a millisecond per MiB) when a message falls due.
  options_.read.read_ahead = options_.read_ahead ? mcap::ReadAhead::kThread : mcap::ReadAhead::kNone;
}

bool Player::IsPlayable(const std::string& topic, const std::string& encoding) {
  // The recorded lockstep plumbing would fight the clock of whoever listens now. Channels in other
  // encodings (the derived Foxglove channels of `record --derived`) are no bus messages.
  return topic != "clock" && topic.rfind("lockstep/", 0) != 0 && encoding == "flatbuffer";
}

void Player::CheckOptions(const PlayOptions& options) {
  PlaybackTimer check_rate(options.rate);
  if (options.period_ns <= 0) throw std::invalid_argument("--period must be > 0");
  if (options.read.start_s && options.read.end_s && *options.read.start_s > *options.read.end_s) {
    throw std::invalid_argument("--start is after --end");
  }
}

std::vector<std::string> Player::PlayPass(const std::atomic<bool>& stop) {
  timer_.Restart();
  std::optional<uint64_t> first_time;
  int64_t pass_first_tick = 0;
  const auto pass_start = std::chrono::steady_clock::now();
  const bool paced = options_.rate > 0;
  ReadOptions read = options_.read;
  read.aligned = false;  // sent on unread: the receiving node aligns what it reads
  return ForEachMessage(files_, read, [&](const BagMessage& m) {
    if (stop.load(std::memory_order_relaxed)) return false;
    // IsPlayable has left out the plumbing and the channels that are not bus messages.
    if (paced) {
      const int64_t due = timer_.DueNs(m.log_time);
      if (due > 0) std::this_thread::sleep_until(pass_start + std::chrono::nanoseconds(due));
    }
    if (options_.drive_clock) {
      // One tick per period of recorded time, up to this message's time.
      if (!first_time) {
        first_time = m.log_time;
        pass_first_tick = tick_;
      }
      const int64_t elapsed = static_cast<int64_t>(m.log_time - *first_time);
      while ((tick_ - pass_first_tick) * options_.period_ns <= elapsed) tick_fn_(tick_++);
    }
    send_(m.topic, m.data, m.owner);
    ++played_;
    return true;
  });
}

}  // namespace limbic::bag
