// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/millennium/host.hpp"

#include <algorithm>
#include <variant>

namespace eboard::drivers::millennium {

namespace {
// E2ROM 02 uses bits 2-0; the rest are unused and may read back anything.
constexpr std::uint8_t REPORT_BITS = 0x07;
int setting_index(std::uint8_t address) { return address == e2rom::REPORTS ? 0 : 1; }
}  // namespace

Host::Host(HostConfig config) : config_(config) {
  if (config_.attempts < 1) config_.attempts = 1;
  if (config_.reply_timeout_ms < 1) config_.reply_timeout_ms = 1;
  if (config_.silence_ms < 1) config_.silence_ms = 1;
  if (config_.scan_time < e2rom::MIN_SCAN_TIME) config_.scan_time = e2rom::DEFAULT_SCAN_TIME;
}

std::uint8_t Host::wanted(std::uint8_t address) const {
  return address == e2rom::REPORTS ? static_cast<std::uint8_t>(config_.reports) : config_.scan_time;
}

void Host::connected(std::int64_t now) {
  connected_ = true;
  out_.clear();
  steps_.clear();
  in_flight_ = false;
  last_heard_ = last_poll_ = now;
  rewrites_[0] = rewrites_[1] = 0;
  confirmed_ = 0;
  for (std::uint8_t address : {e2rom::REPORTS, e2rom::SCAN_TIME})
    steps_.push_back({'W', address, wanted(address)});
  for (std::uint8_t address : {e2rom::REPORTS, e2rom::SCAN_TIME})
    steps_.push_back({'R', address, wanted(address)});
  steps_.push_back({'S', 0, 0});
  send_next(now);
}

void Host::disconnected() {
  connected_ = false;
  steps_.clear();
  in_flight_ = false;
  out_.clear();
}

bool Host::answers(const Step& step, const Reply& reply) const {
  if (step.command == 'S') return std::holds_alternative<Snapshot>(reply);
  const auto* e = std::get_if<E2rom>(&reply);
  return e && e->written == (step.command == 'W') && e->address == step.address;
}

void Host::reply(std::int64_t now, const Reply& reply) {
  if (!connected_) return;
  last_heard_ = now;
  if (!in_flight_ || !answers(steps_.front(), reply)) return;
  const Step done = steps_.front();
  steps_.pop_front();
  in_flight_ = false;
  if (done.command == 'R') read_back(done, std::get<E2rom>(reply));
  send_next(now);
}

void Host::read_back(const Step& step, const E2rom& got) {
  const int i = setting_index(step.address);
  const std::uint8_t mask = step.address == e2rom::REPORTS ? REPORT_BITS : 0xFF;
  if ((got.value & mask) == (step.value & mask)) {
    const int before = confirmed_;
    confirmed_ |= 1 << i;
    if (before != 3 && confirmed_ == 3) ++stats_.settings_confirmed;
    return;
  }
  confirmed_ &= ~(1 << i);
  if (rewrites_[i] >= config_.attempts) {
    ++stats_.settings_refused;
    return;
  }
  ++rewrites_[i];
  ++stats_.settings_rewritten;
  steps_.push_front({'R', step.address, step.value});
  steps_.push_front({'W', step.address, step.value});
}

void Host::send_next(std::int64_t now) {
  if (in_flight_ || steps_.empty()) return;
  sends_ = 0;
  send(now);
}

void Host::send(std::int64_t now) {
  const Step& step = steps_.front();
  std::vector<std::uint8_t> bytes;
  switch (step.command) {
    case 'W':
      bytes = command::write_e2rom(step.address, step.value);
      break;
    case 'R':
      bytes = command::read_e2rom(step.address);
      break;
    default:
      bytes = command::snapshot();
      break;
  }
  out_.insert(out_.end(), bytes.begin(), bytes.end());
  ++stats_.commands_sent;
  if (sends_ > 0) ++stats_.resends;
  ++sends_;
  sent_at_ = now;
  in_flight_ = true;
}

void Host::advance(std::int64_t now) {
  if (!connected_) return;
  if (in_flight_ && now >= sent_at_ + config_.reply_timeout_ms) {
    if (sends_ < config_.attempts) {
      send(now);
    } else {
      ++stats_.unanswered;
      steps_.pop_front();
      in_flight_ = false;
      send_next(now);
    }
  }
  if (!in_flight_ && steps_.empty() && now >= std::max(last_heard_, last_poll_) + config_.silence_ms) {
    ++stats_.silence_polls;
    last_poll_ = now;
    rewrites_[0] = rewrites_[1] = 0;
    steps_.push_back({'S', 0, 0});
    steps_.push_back({'R', e2rom::REPORTS, wanted(e2rom::REPORTS)});
    send_next(now);
  }
}

std::optional<std::int64_t> Host::next_deadline() const {
  if (!connected_) return std::nullopt;
  if (in_flight_) return sent_at_ + config_.reply_timeout_ms;
  return std::max(last_heard_, last_poll_) + config_.silence_ms;
}

std::vector<std::uint8_t> Host::take_output() {
  std::vector<std::uint8_t> out;
  out.swap(out_);
  return out;
}

}  // namespace eboard::drivers::millennium
