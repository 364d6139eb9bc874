#include "services/hwio/serial_backend.hpp"

#include <array>
#include <asio.hpp>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "services/hwio/watchdog.hpp"

namespace limbic::hwio {

struct SerialBackend::Impl {
  explicit Impl(SerialBackendOptions opts)
      : options(std::move(opts)),
        port(io),
        parser(options.parser),
        board_watchdog(WatchdogOptions{.timeout = options.stale_timeout, .enabled = true}) {}

  void StartRead() {
    port.async_read_some(asio::buffer(read_buffer), [this](const asio::error_code& ec, size_t n) {
      if (n > 0) pending.append(read_buffer.data(), n);
      if (ec) {
        ++counters.read_errors;
        connected = false;
        last_error = "read from " + options.device + " failed: " + ec.message();
        return;  // no further reads; Status() reports the failure
      }
      StartRead();
    });
  }

  void RunReady() {
    if (io.stopped()) io.restart();
    io.poll();
  }

  RangeScan MakeScan(const ProtocolMessage& m) {
    RangeScan scan;
    const size_t n = m.ranges_mm.size();
    if (options.beam_layout.empty()) {
      scan.beams.resize(n);
      for (size_t k = 0; k < n; ++k) {
        scan.beams[k].sensor_id = static_cast<int>(k);
        scan.beams[k].angle_local = 2.0 * geometry::kPi * static_cast<double>(k) / static_cast<double>(n);
      }
    } else {
      scan.beams = options.beam_layout;
    }
    for (size_t k = 0; k < n; ++k) {
      RangeBeam& beam = scan.beams[k];
      if (m.ranges_mm[k] == 0) {
        beam.range = beam.d_max;
        beam.valid = false;
      } else {
        beam.range = m.ranges_mm[k] / 1000.0;
        beam.valid = beam.range < beam.d_max;
      }
    }
    return scan;
  }

  void OnEncoders(const ProtocolMessage& m) {
    if (have_encoders) {
      // Differences modulo 2^32 survive counter wrap-around.
      const auto dl_ticks =
          static_cast<int32_t>(static_cast<uint32_t>(m.ticks_left) - static_cast<uint32_t>(last_ticks_left));
      const auto dr_ticks =
          static_cast<int32_t>(static_cast<uint32_t>(m.ticks_right) - static_cast<uint32_t>(last_ticks_right));
      const double dt = static_cast<uint32_t>(m.board_time_ms - last_board_ms) / 1000.0;
      const WheelCommand travel{.v_left = dl_ticks / options.ticks_per_metre,
                                .v_right = dr_ticks / options.ticks_per_metre};
      // Wheel travel → (Δs, Δθ) by eqs. 4.4–4.5, then the exact arc (eqs. 4.6–4.7) with T = 1.
      const VelocityCommand delta = WheelsToBody(travel, options.wheel_separation, options.wheel_assignment);
      odometry.pose = geometry::IntegrateArc(odometry.pose, delta.v, delta.omega, 1.0);
      if (dt > 0.0) {
        odometry.v = delta.v / dt;
        odometry.omega = delta.omega / dt;
      }
    }
    have_encoders = true;
    last_ticks_left = m.ticks_left;
    last_ticks_right = m.ticks_right;
    last_board_ms = m.board_time_ms;
  }

  SerialBackendOptions options;
  asio::io_context io;
  asio::serial_port port;
  std::array<char, 1024> read_buffer{};
  std::string pending;
  LineProtocolParser parser;
  Watchdog board_watchdog;
  SerialBackendCounters counters;
  bool connected = false;
  std::string last_error;
  uint32_t tx_seq = 0;
  int64_t frames = 0;
  int64_t commands_sent = 0;
  OdometryEstimate odometry;
  bool have_encoders = false;
  int32_t last_ticks_left = 0;
  int32_t last_ticks_right = 0;
  uint32_t last_board_ms = 0;
  bool was_fresh = false;
  int64_t stale_trips = 0;
};

SerialBackend::SerialBackend(SerialBackendOptions options) {
  if (!(options.ticks_per_metre > 0.0)) throw std::invalid_argument("SerialBackend: ticks_per_metre must be > 0");
  if (!(options.wheel_separation > 0.0)) throw std::invalid_argument("SerialBackend: wheel_separation must be > 0");
  impl_ = std::make_unique<Impl>(std::move(options));
  Impl& d = *impl_;
  d.odometry.pose = d.options.initial_pose;
  asio::error_code ec;
  d.port.open(d.options.device, ec);
  if (ec) throw std::runtime_error("SerialBackend: cannot open '" + d.options.device + "': " + ec.message());
  // Raw 8N1 is set by asio on open; a pseudo-terminal accepts but ignores the baud rate.
  d.port.set_option(asio::serial_port_base::baud_rate(d.options.baud_rate), ec);
  d.port.set_option(asio::serial_port_base::character_size(8), ec);
  d.port.set_option(asio::serial_port_base::parity(asio::serial_port_base::parity::none), ec);
  d.port.set_option(asio::serial_port_base::stop_bits(asio::serial_port_base::stop_bits::one), ec);
  d.port.set_option(asio::serial_port_base::flow_control(asio::serial_port_base::flow_control::none), ec);
  d.connected = true;
  d.StartRead();
}

SerialBackend::~SerialBackend() {
  asio::error_code ec;
  impl_->port.cancel(ec);
  impl_->port.close(ec);
}

void SerialBackend::SendWheels(double now, const WheelCommand& wheels) {
  Impl& d = *impl_;
  const WatchdogOutput gated = d.board_watchdog.Gate(now, wheels);
  if (gated.stale) ++d.counters.zero_forced;
  auto to_mm = [](double v) {
    const double mm = std::round(v * 1000.0);
    if (!std::isfinite(mm)) return 0;
    return static_cast<int32_t>(std::clamp(mm, -32767.0, 32767.0));
  };
  ProtocolMessage m{.type = LineType::kWheels,
                    .seq = d.tx_seq++,
                    .left_mm_s = to_mm(gated.wheels.v_left),
                    .right_mm_s = to_mm(gated.wheels.v_right)};
  const std::string line = FormatLine(m);
  asio::error_code ec;
  asio::write(d.port, asio::buffer(line), ec);
  if (ec) {
    ++d.counters.write_errors;
    d.connected = false;
    d.last_error = "write to " + d.options.device + " failed: " + ec.message();
    return;
  }
  ++d.counters.wheel_lines_sent;
  ++d.commands_sent;
}

std::optional<SensorFrame> SerialBackend::Poll(double now) {
  Impl& d = *impl_;
  d.RunReady();
  std::vector<ProtocolMessage> messages = d.parser.Feed(d.pending);
  d.pending.clear();

  SensorFrame frame;
  frame.stamp = now;
  bool any = false;
  uint32_t bumper_bits = 0;
  for (const ProtocolMessage& m : messages) {
    switch (m.type) {
      case LineType::kEncoders:
        d.OnEncoders(m);
        frame.has_odometry = true;
        any = true;
        break;
      case LineType::kRanges:
        if (!d.options.beam_layout.empty() && m.ranges_mm.size() != d.options.beam_layout.size()) {
          ++d.counters.layout_mismatches;
          continue;
        }
        frame.scan = d.MakeScan(m);
        frame.scan.stamp = now;
        frame.has_scan = true;
        any = true;
        break;
      case LineType::kBumpers:
        bumper_bits |= m.bumper_bits;  // OR over the poll: a contact shorter than a cycle is not lost
        frame.has_contact = true;
        any = true;
        break;
      case LineType::kWheels:
        ++d.counters.unexpected_lines;
        continue;
    }
  }
  if (frame.has_odometry) frame.odometry = d.odometry;
  if (frame.has_contact) {
    CollisionEvent& contact = frame.contact;
    for (int i = 0; i < d.options.switch_count && i < 32; ++i) {
      if (bumper_bits & (1u << i)) contact.sensor_ids.push_back(i);
    }
    contact.occurred = !contact.sensor_ids.empty();
    // Raw switches only: the contact point is placed in one place, hwio's CollisionEventDetector,
    // from the pose estimate of the cycle (issue 15: no second computation here to drift from it).
    if (contact.occurred) contact.speed_before = d.odometry.v;
  }
  if (any) d.board_watchdog.OnCommand(now);

  const bool fresh = d.board_watchdog.Fresh(now);
  if (d.was_fresh && !fresh) ++d.stale_trips;
  d.was_fresh = fresh;

  if (!any) return std::nullopt;
  ++d.frames;
  return frame;
}

BackendStatus SerialBackend::Status(double now) const {
  const Impl& d = *impl_;
  BackendStatus s;
  s.connected = d.connected;
  s.stale = !d.board_watchdog.Fresh(now);
  s.last_data_time = d.board_watchdog.state().last_fresh_stamp;
  s.stale_trips = d.stale_trips + ((d.was_fresh && s.stale) ? 1 : 0);
  s.frames = d.frames;
  const LineParserCounters& p = d.parser.counters();
  s.accepted_inputs = p.accepted;
  s.rejected_inputs = p.rejected() + d.counters.layout_mismatches + d.counters.unexpected_lines;
  s.commands_sent = d.commands_sent;
  s.last_error = d.last_error;
  return s;
}

bool SerialBackend::WaitForInput(double timeout_s) {
  Impl& d = *impl_;
  d.RunReady();
  if (!d.pending.empty()) return true;
  if (d.io.stopped()) d.io.restart();
  const auto timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::max(0.0, timeout_s)));
  d.io.run_one_for(timeout);
  d.RunReady();
  return !d.pending.empty();
}

const SerialBackendCounters& SerialBackend::counters() const {
  impl_->counters.parser = impl_->parser.counters();
  return impl_->counters;
}

const OdometryEstimate& SerialBackend::odometry() const { return impl_->odometry; }

}  // namespace limbic::hwio
