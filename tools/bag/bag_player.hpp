// bag::Player: what `limbic play` does with a recording, without a bus — messages in file order at
// their recorded timing (PlaybackTimer), the recorded lockstep plumbing (clock, lockstep/*) and
// channels that are not FlatBuffers bus messages (derived Foxglove channels) left out, and, when
// asked, one clock tick per period of recorded time so lockstep services step along. The caller
// supplies the transport (`send`, `tick`); `bench/replay_bench.cpp` measures it through a broker.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tools/bag/bag_reader.hpp"

namespace limbic::bag {

struct PlayOptions {
  ReadOptions read;
  double rate = 1.0;         // 2: twice as fast; 0: as fast as possible
  bool drive_clock = false;  // call `tick` once per `period_ns` of recorded time
  int64_t period_ns = 100'000'000;
  // Decompress and check chunks on a second thread ahead of the sending one (mcap::ReadAhead);
  // false: all on the calling thread (one core, or to measure what the thread buys).
  bool read_ahead = true;
};

class Player {
 public:
  // `owner` keeps `data` alive past the call as long as a copy of it is held (a chunk of the
  // recording or the file's mapping): a bus sends from it without copying (bus::Node::SendShared).
  // Null: `data` is valid during the call only.
  using SendFn = std::function<void(const std::string& topic, std::span<const uint8_t> data,
                                    const std::shared_ptr<const void>& owner)>;
  // Tick number, counted on across passes so a looping clock never runs backwards.
  using TickFn = std::function<void(int64_t tick)>;

  // Throws std::invalid_argument for a bad rate, a period <= 0, or a start after the end.
  Player(std::vector<std::string> files, PlayOptions options, SendFn send, TickFn tick = {});
  // The option checks of the constructor, for a command line to run before it connects anywhere.
  static void CheckOptions(const PlayOptions& options);
  // Whether a recorded channel goes onto the bus: not the lockstep plumbing (clock, lockstep/*), and
  // only FlatBuffers bus messages (not the derived Foxglove channels).
  static bool IsPlayable(const std::string& topic, const std::string& encoding);

  // One pass over the recording (`--loop` calls it again); `stop` is read before each message.
  // Returns the damage found ("FILE: at byte N: what"); what came before it has been played.
  std::vector<std::string> PlayPass(const std::atomic<bool>& stop);

  uint64_t played() const { return played_; }
  int64_t ticks() const { return tick_; }

 private:
  std::vector<std::string> files_;
  PlayOptions options_;
  SendFn send_;
  TickFn tick_fn_;
  PlaybackTimer timer_;
  uint64_t played_ = 0;
  int64_t tick_ = 0;
};

}  // namespace limbic::bag
