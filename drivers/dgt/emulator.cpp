// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/emulator.hpp"

#include <algorithm>

#include "drivers/dgt/bus.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {
namespace {

constexpr std::int64_t kMaxDisplayMs = (9 * 3600 + 59 * 60 + 59) * 1000;
constexpr std::int64_t kQuickRecordMs = 250;     // EEPROM piece records closer than this are marked quick
constexpr std::size_t kMaxEepromRecords = 2400;  // 3 bytes at most each: well inside the 0x1F00-byte ring
constexpr std::size_t kMaxClockFrameSize = 32;   // longest clock frame is 0x0C; anything far above is noise
constexpr std::size_t kBusFrameSize = 4;

// The standard start position in raw squares (a8 first), seen with White at the far end from square 0.
constexpr std::array<std::uint8_t, 8> kBackRank = {
    piece::kBlackRook, piece::kBlackKnight, piece::kBlackBishop, piece::kBlackQueen,
    piece::kBlackKing, piece::kBlackBishop, piece::kBlackKnight, piece::kBlackRook};

std::array<std::uint8_t, 64> start_position(bool rotated) {
  std::array<std::uint8_t, 64> b{};
  for (int f = 0; f < 8; ++f) {
    const auto fu = static_cast<std::size_t>(f);
    b[fu] = kBackRank[fu];
    b[8 + fu] = piece::kBlackPawn;
    b[48 + fu] = piece::kWhitePawn;
    b[56 + fu] = static_cast<std::uint8_t>(kBackRank[fu] - 6);  // the same piece, White
  }
  if (!rotated) return b;
  std::array<std::uint8_t, 64> r{};
  for (std::size_t i = 0; i < 64; ++i) r[i ^ kRotate180] = b[i];
  return r;
}

std::int64_t displayed(std::int64_t ms) {
  if (ms <= 0) return 0;
  return std::min((ms + 999) / 1000 * 1000, kMaxDisplayMs);
}

Bytes value_or_empty(const tl::expected<Bytes, EncodeError>& e) { return e ? *e : Bytes{}; }

}  // namespace

std::string_view to_string(BoardMode mode) {
  switch (mode) {
    case BoardMode::Idle:
      return "idle";
    case BoardMode::UpdateBoard:
      return "update-board";
    case BoardMode::Update:
      return "update";
    case BoardMode::UpdateNice:
      return "update-nice";
  }
  return "unknown";
}

std::uint8_t Emulator::raw_square(int file, int rank, bool rotated) {
  const int raw = ((7 - (rank & 7)) * 8 + (file & 7));
  return static_cast<std::uint8_t>(rotated ? raw ^ kRotate180 : raw);
}

Emulator::Emulator(EmulatorConfig config) : config_(std::move(config)) {
  bus_address_ = board_message::bus_address_from_serial(config_.serial);
  bus_mode_ = config_.start_in_bus_mode;
  eeprom_.emplace_back(TagRecord{EepromTag::PowerUp});
}

bool Emulator::update_mode() const { return !bus_mode_ && mode_ != BoardMode::Idle; }

bool Emulator::clock_updates() const {
  return !bus_mode_ && (mode_ == BoardMode::Update || mode_ == BoardMode::UpdateNice);
}

// ---------------------------------------------------------------------------------------------------
// Output

void Emulator::emit(const Bytes& bytes) {
  output_.insert(output_.end(), bytes.begin(), bytes.end());
  stats_.bytes_out += bytes.size();
}

void Emulator::emit_reply(const Bytes& bytes) {
  if (holding()) {
    if (held_.empty() && held_input_.empty()) held_since_ms_ = last_now_ms_;
    held_.insert(held_.end(), bytes.begin(), bytes.end());
    return;
  }
  emit(bytes);
}

Bytes Emulator::take_output() {
  Bytes out;
  out.swap(output_);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Clock

EmulatedClock Emulator::clock_at(std::int64_t now_ms) const {
  EmulatedClock c = clock_;
  if (!c.connected || !c.running) return c;
  const std::int64_t dt = std::max<std::int64_t>(0, now_ms - clock_as_of_ms_);
  std::int64_t& t = c.right_lever_high ? c.right_ms : c.left_ms;
  bool& flag = c.right_lever_high ? c.right_flag : c.left_flag;
  t -= dt;
  if (t <= 0) {
    t = 0;
    flag = true;
  }
  return c;
}

ClockTimes Emulator::clock_reading(std::int64_t now_ms) const {
  ClockTimes r;
  const EmulatedClock c = clock_at(now_ms);
  if (!c.connected) {
    r.clock_connected = false;
    r.status = board_message::clock_status_byte(r);
    return r;
  }
  r.left = ClockFace{
      .time_ms = displayed(c.left_ms), .flag_fallen = c.left_flag, .time_per_move = c.time_per_move};
  r.right = ClockFace{
      .time_ms = displayed(c.right_ms), .flag_fallen = c.right_flag, .time_per_move = c.time_per_move};
  r.running = c.running;
  r.right_lever_high = c.right_lever_high;
  r.battery_low = c.battery_low;
  // Real captures: b3 is set while the left (p3..p5) time runs, b4 while the right one does.
  r.turn_b3 = c.running && !c.right_lever_high;
  r.turn_b4 = c.running && c.right_lever_high;
  r.clock_connected = true;
  r.status = board_message::clock_status_byte(r);
  return r;
}

Bytes Emulator::clock_times_bytes(std::int64_t now_ms) const {
  return value_or_empty(board_message::clock_times(clock_reading(now_ms)));
}

void Emulator::settle_clock(std::int64_t now_ms) {
  clock_ = clock_at(now_ms);
  clock_as_of_ms_ = now_ms;
}

void Emulator::apply_clock(std::int64_t now_ms, const EmulatedClock& clock) {
  settle_clock(now_ms);
  // A lever press while the clock runs: the EEPROM keeps the time of the clock that stopped.
  if (clock_.connected && clock.connected && clock_.running && clock.running &&
      clock_.right_lever_high != clock.right_lever_high) {
    const bool right_stopped = clock_.right_lever_high;
    log_record(now_ms, TimeRecord{.side = right_stopped ? ClockSide::Right : ClockSide::Left,
                                  .time_ms = std::min(right_stopped ? clock.right_ms : clock.left_ms,
                                                      kMaxDisplayMs)});
  }
  clock_ = clock;
  clock_as_of_ms_ = now_ms;
}

std::optional<std::int64_t> Emulator::next_display_change(std::int64_t now_ms) const {
  const EmulatedClock c = clock_at(now_ms);
  if (!c.connected || !c.running) return std::nullopt;
  const std::int64_t r = c.right_lever_high ? c.right_ms : c.left_ms;
  if (r <= 0) return std::nullopt;
  const std::int64_t shown_s = (r + 999) / 1000;
  return now_ms + (r - (shown_s - 1) * 1000);
}

void Emulator::send_clock_times(std::int64_t now_ms) {
  Bytes bytes = clock_times_bytes(now_ms);
  emit_reply(bytes);
  last_clock_bytes_ = std::move(bytes);
  last_clock_sent_ms_ = now_ms;
}

void Emulator::queue_ack(std::int64_t now_ms, ClockAck ack) {
  acks_.push_back(PendingAck{now_ms + std::max<std::int64_t>(0, config_.ack_delay_ms), ack});
}

// ---------------------------------------------------------------------------------------------------
// Pieces and the EEPROM log

void Emulator::log_record(std::int64_t now_ms, EepromRecord record) {
  // The quick bit is about the previous piece record (the header's "update tag"), whatever came between.
  if (auto* p = std::get_if<PieceChangeRecord>(&record)) {
    p->quick = last_record_ms_ && now_ms - *last_record_ms_ < kQuickRecordMs;
    last_record_ms_ = now_ms;
  }
  eeprom_.push_back(record);
  if (eeprom_.size() > kMaxEepromRecords) {
    // A ring buffer: the oldest records go.
    const std::size_t drop = eeprom_.size() - kMaxEepromRecords + kMaxEepromRecords / 8;
    eeprom_.erase(eeprom_.begin(), eeprom_.begin() + static_cast<std::ptrdiff_t>(drop));
    for (std::size_t* index : {&bus_changes_from_, &bus_changes_last_, &bus_game_start_}) {
      *index = *index > drop ? *index - drop : 0;
    }
  }
}

void Emulator::check_start_position(std::int64_t now_ms) {
  if (pieces_ == start_position(false)) {
    log_record(now_ms, TagRecord{EepromTag::StartPosition});
  } else if (pieces_ == start_position(true)) {
    log_record(now_ms, TagRecord{EepromTag::StartPositionRotated});
  }
}

void Emulator::change_piece(std::int64_t now_ms, std::uint8_t raw, std::uint8_t code, bool report) {
  if (raw >= kSquareCount || code > piece::kMaxCode || pieces_[raw] == code) return;
  pieces_[raw] = code;
  log_record(now_ms, PieceChangeRecord{.square = raw, .piece = code, .quick = false});
  check_start_position(now_ms);
  if (report && config_.spontaneous && update_mode())
    emit(value_or_empty(board_message::field_update(raw, code)));
}

Bytes Emulator::eeprom_payload(std::size_t from_record, std::size_t to_record) const {
  Bytes out;
  for (std::size_t i = from_record; i < std::min(to_record, eeprom_.size()); ++i) {
    const Bytes r = value_or_empty(board_message::eeprom_record(eeprom_[i]));
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Public inputs

void Emulator::set_piece(std::int64_t now_ms, std::uint8_t raw_square, std::uint8_t code) {
  run_due(now_ms);
  change_piece(now_ms, raw_square, code, true);
  run_due(now_ms);
}

void Emulator::set_piece_at(std::int64_t now_ms, int file, int rank, std::uint8_t code) {
  if (file < 0 || file > 7 || rank < 0 || rank > 7) return;
  set_piece(now_ms, raw_square(file, rank, config_.rotated), code);
}

void Emulator::set_board(std::int64_t now_ms, const std::array<std::uint8_t, 64>& pieces) {
  run_due(now_ms);
  for (std::uint8_t sq = 0; sq < kSquareCount; ++sq) change_piece(now_ms, sq, pieces[sq], true);
  run_due(now_ms);
}

void Emulator::set_clock(std::int64_t now_ms, const EmulatedClock& clock) {
  run_due(now_ms);
  apply_clock(now_ms, clock);
  run_due(now_ms);
}

void Emulator::press_clock_button(std::int64_t now_ms, ClockButton button) {
  run_due(now_ms);
  last_button_ = button;
  if (clock_.connected) {
    static constexpr std::array<std::uint8_t, 5> kCodes = {
        clock::kButtonBack, clock::kButtonPlus, clock::kButtonRun, clock::kButtonMinus, clock::kButtonOk};
    queue_ack(now_ms,
              ClockAck{{clock::kAckOk, clock::kAutoButton, 0x00, kCodes[static_cast<std::size_t>(button)]}});
  }
  run_due(now_ms);
}

void Emulator::pass_through(std::int64_t now_ms, std::span<const std::uint8_t> bytes) {
  run_due(now_ms);
  std::vector<Message> messages;
  // Byte by byte, so that held replies go out exactly where a recorded message ends.
  for (const std::uint8_t b : bytes) {
    output_.push_back(b);
    ++stats_.bytes_out;
    messages.clear();
    pass_decoder_.feed(std::span<const std::uint8_t>(&b, 1), messages);
    for (const Message& m : messages) sync_from_recording(now_ms, m);
    if (pass_decoder_.pending_bytes() == 0) release_held(now_ms);
  }
  run_due(now_ms);
}

bool Emulator::holding() const { return !config_.spontaneous && pass_decoder_.pending_bytes() > 0; }

void Emulator::release_held(std::int64_t now_ms) {
  if (!held_.empty()) {
    emit(held_);
    held_.clear();
  }
  if (!held_input_.empty()) {
    const Bytes input = std::move(held_input_);
    held_input_.clear();
    for (const std::uint8_t b : input) feed_byte(now_ms, b);
  }
}

void Emulator::sync_from_recording(std::int64_t now_ms, const Message& m) {
  if (const auto* f = std::get_if<FieldUpdate>(&m)) {
    change_piece(now_ms, f->square, f->piece, false);
  } else if (const auto* d = std::get_if<BoardDump>(&m)) {
    for (std::uint8_t sq = 0; sq < kSquareCount; ++sq) change_piece(now_ms, sq, d->pieces[sq], false);
  } else if (const auto* t = std::get_if<ClockTimes>(&m)) {
    EmulatedClock c;
    c.connected = t->clock_connected;
    c.left_ms = t->left.time_ms;
    c.right_ms = t->right.time_ms;
    c.running = t->running;
    c.right_lever_high = t->right_lever_high;
    c.left_flag = t->left.flag_fallen;
    c.right_flag = t->right.flag_fallen;
    c.time_per_move = t->left.time_per_move || t->right.time_per_move;
    c.battery_low = t->battery_low;
    apply_clock(now_ms, c);
  }
}

void Emulator::power_cycle(std::int64_t now_ms) {
  run_due(now_ms);
  mode_ = BoardMode::Idle;
  bus_mode_ = config_.start_in_bus_mode;
  ignore_next_ping_ = false;
  pending_ = Pending::None;
  frame_.clear();
  clock_poll_at_ms_.reset();
  last_clock_bytes_.clear();
  last_clock_sent_ms_.reset();
  acks_.clear();
  held_.clear();
  held_input_.clear();
  pass_decoder_.reset();
  output_.clear();
  display_.clear();
  log_record(now_ms, TagRecord{EepromTag::PowerUp});
}

// ---------------------------------------------------------------------------------------------------
// Time

void Emulator::run_due(std::int64_t now_ms) {
  last_now_ms_ = std::max(last_now_ms_, now_ms);
  const std::int64_t now = last_now_ms_;
  if (pending_ != Pending::None && now - frame_started_ms_ >= config_.command_timeout_ms) {
    ++stats_.bad_frames;
    pending_ = Pending::None;
    frame_.clear();
  }
  while (!acks_.empty() && acks_.front().due_ms <= now) {
    if (clock_updates()) {
      emit_reply(board_message::clock_ack(acks_.front().ack));
      ++stats_.acks_sent;
    } else {
      ++stats_.acks_dropped;
    }
    acks_.erase(acks_.begin());
  }
  if ((!held_.empty() || !held_input_.empty()) && now - held_since_ms_ >= config_.command_timeout_ms) {
    pass_decoder_.reset();  // the recorded message never finished: do not hold the replies for ever
    release_held(now);
  }
  if (config_.spontaneous && clock_updates() && clock_poll_at_ms_ && now >= *clock_poll_at_ms_) {
    Bytes bytes = clock_times_bytes(now);
    bool send = bytes != last_clock_bytes_;
    if (mode_ == BoardMode::Update && last_clock_sent_ms_ &&
        now - *last_clock_sent_ms_ >= config_.update_period_ms) {
      send = true;
    }
    if (send) {
      emit(bytes);
      last_clock_bytes_ = std::move(bytes);
      last_clock_sent_ms_ = now;
    }
  }
}

void Emulator::advance(std::int64_t now_ms) { run_due(now_ms); }

std::optional<std::int64_t> Emulator::next_deadline() const {
  std::optional<std::int64_t> best;
  const auto consider = [&best](std::int64_t t) { best = best ? std::min(*best, t) : t; };
  if (pending_ != Pending::None) consider(frame_started_ms_ + config_.command_timeout_ms);
  if (!acks_.empty()) consider(acks_.front().due_ms);
  if (!held_.empty() || !held_input_.empty()) consider(held_since_ms_ + config_.command_timeout_ms);
  if (config_.spontaneous && clock_updates() && clock_poll_at_ms_) {
    if (last_now_ms_ < *clock_poll_at_ms_) {
      consider(*clock_poll_at_ms_);
    } else {
      if (const auto change = next_display_change(last_now_ms_)) consider(*change);
      if (mode_ == BoardMode::Update && last_clock_sent_ms_)
        consider(*last_clock_sent_ms_ + config_.update_period_ms);
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------------
// Commands from the host

void Emulator::receive(std::int64_t now_ms, std::span<const std::uint8_t> bytes) {
  run_due(now_ms);
  stats_.bytes_in += bytes.size();
  if (holding()) {
    // A recorded message is half sent: take the commands once it is out, so that the replies follow it
    // and show the board as it stands after it.
    if (held_.empty() && held_input_.empty()) held_since_ms_ = last_now_ms_;
    held_input_.insert(held_input_.end(), bytes.begin(), bytes.end());
    return;
  }
  for (const std::uint8_t b : bytes) feed_byte(last_now_ms_, b);
  run_due(now_ms);
}

void Emulator::feed_byte(std::int64_t now_ms, std::uint8_t b) {
  const bool start_bit = (b & kMessageStartBit) != 0;
  const auto abandon = [&] {
    // A frame cut short by a byte that cannot belong to it: drop the frame, read the byte afresh.
    ++stats_.bad_frames;
    pending_ = Pending::None;
    frame_.clear();
    start_command(now_ms, b);
  };
  switch (pending_) {
    case Pending::None:
      start_command(now_ms, b);
      return;
    case Pending::ClockSize:
      if (start_bit || b < 3 || b > kMaxClockFrameSize) return abandon();
      frame_size_ = b;
      frame_.clear();
      pending_ = Pending::ClockBody;
      return;
    case Pending::LedSize:
      if (start_bit || b > kMaxClockFrameSize) return abandon();
      frame_size_ = b;
      frame_.clear();
      pending_ = b == 0 ? Pending::None : Pending::LedBody;
      if (b == 0) ++stats_.commands;
      return;
    case Pending::ClockBody:
    case Pending::LedBody:
    case Pending::Bus:
      if (start_bit) return abandon();
      frame_.push_back(b);
      break;
  }
  if (pending_ == Pending::Bus && frame_.size() == kBusFrameSize) {
    pending_ = Pending::None;
    const Bytes frame = std::move(frame_);
    frame_.clear();
    bus_command(now_ms, frame);
  } else if (pending_ == Pending::ClockBody && frame_.size() == frame_size_) {
    pending_ = Pending::None;
    const Bytes body = std::move(frame_);
    frame_.clear();
    clock_command(now_ms, body);
  } else if (pending_ == Pending::LedBody && frame_.size() == frame_size_) {
    pending_ = Pending::None;
    frame_.clear();
    bus_mode_ = false;  // a single-board command
    ++stats_.commands;  // LEDs: nothing to show on an emulated board
  }
}

void Emulator::start_command(std::int64_t now_ms, std::uint8_t b) {
  if ((b & kMessageStartBit) != 0) {
    pending_ = Pending::Bus;
    frame_.assign(1, b);
    frame_started_ms_ = now_ms;
    return;
  }
  if (b == command::kClockMessage || b == command::kSetLeds) {
    pending_ = b == command::kClockMessage ? Pending::ClockSize : Pending::LedSize;
    frame_.clear();
    frame_started_ms_ = now_ms;
    return;
  }
  single_command(now_ms, b);
}

void Emulator::enter_mode(std::int64_t now_ms, BoardMode mode) {
  mode_ = mode;
  if (mode == BoardMode::Update || mode == BoardMode::UpdateNice) {
    clock_poll_at_ms_ = now_ms + std::max<std::int64_t>(0, config_.clock_poll_ms);
    last_clock_bytes_.clear();
    last_clock_sent_ms_.reset();
  } else {
    clock_poll_at_ms_.reset();
  }
}

void Emulator::single_command(std::int64_t now_ms, std::uint8_t b) {
  switch (b) {
    case command::kReset:
      enter_mode(now_ms, BoardMode::Idle);
      break;
    case command::kSendClock:
      send_clock_times(now_ms);
      break;
    case command::kSendBoard:
      emit_reply(value_or_empty(board_message::board_dump(pieces_)));
      break;
    case command::kUpdate:
      enter_mode(now_ms, BoardMode::Update);
      break;
    case command::kUpdateBoard:
      enter_mode(now_ms, BoardMode::UpdateBoard);
      break;
    case command::kUpdateNice:
      enter_mode(now_ms, BoardMode::UpdateNice);
      break;
    case command::kSerialNumber:
      emit_reply(value_or_empty(board_message::serial_number(config_.serial)));
      break;
    case command::kLongSerialNumber:
      emit_reply(value_or_empty(board_message::long_serial_number(config_.long_serial)));
      break;
    case command::kBusAddress:
      emit_reply(value_or_empty(board_message::bus_address(bus_address_)));
      break;
    case command::kTrademark:
      emit_reply(value_or_empty(board_message::trademark(config_.trademark)));
      break;
    case command::kVersion:
      emit_reply(value_or_empty(board_message::version(config_.version)));
      break;
    case command::kBatteryStatus:
      if (config_.battery) emit_reply(value_or_empty(board_message::battery_status(*config_.battery)));
      break;
    case command::kEepromMoves: {
      EepromLog log;
      log.nop_bytes = 3;
      log.records = eeprom_;
      log.ended_with_eof = true;
      emit_reply(value_or_empty(board_message::eeprom_moves(log)));
      break;
    }
    case command::kToBusMode:
      bus_mode_ = true;
      ++stats_.commands;
      return;
    default:
      // Unknown bytes, and 0x4E (the firmware loader), which an emulator must never act on.
      ++stats_.ignored_bytes;
      return;
  }
  bus_mode_ = false;  // any single-board command ends bus mode
  ++stats_.commands;
}

void Emulator::clock_command(std::int64_t now_ms, std::span<const std::uint8_t> body) {
  if (body.size() < 3 || body.front() != clock::kFrameStart || body.back() != clock::kFrameEnd) {
    ++stats_.bad_frames;
    return;
  }
  ++stats_.clock_commands;
  bus_mode_ = false;
  if (!clock_.connected) return;  // no clock: nobody answers
  const std::uint8_t sub = body[1];
  const auto data = body.subspan(2, body.size() - 3);
  ClockAck ack{{clock::kAckOk, sub, 0x00, 0x00}};
  bool ok = true;
  switch (sub) {
    case clock::kDisplaySegments:
      ok = data.size() == 8;
      if (ok) {
        display_ = "[segments]";
        if (data[7] == clock::kSegmentsBeep) ++beeps_;
      }
      break;
    case clock::kDisplayText:
      ok = data.size() == 9;
      if (ok) {
        display_.assign(data.begin(), data.begin() + 8);
        display_.erase(display_.find_last_not_of(' ') + 1);
        if (display_.empty()) display_ = " ";
        if (data[8] != 0) ++beeps_;
      }
      break;
    case clock::kIcons:
      ok = data.size() == 8;
      break;
    case clock::kEnd:
      display_.clear();
      break;
    case clock::kButton:
      if (last_button_) {
        static constexpr std::array<std::uint8_t, 5> kCodes = {
            clock::kButtonBack, clock::kButtonPlus, clock::kButtonRun, clock::kButtonMinus, clock::kButtonOk};
        ack.ack[3] = kCodes[static_cast<std::size_t>(*last_button_)];
      }
      break;
    case clock::kVersion:
      ack.ack[2] = static_cast<std::uint8_t>((config_.clock_version.major & 0x0F) << 4 |
                                             (config_.clock_version.minor & 0x0F));
      break;
    case clock::kSetAndRun: {
      ok = data.size() == 7 && config_.clock_mode_23 && data[0] <= 9 && data[1] < 60 && data[2] < 60 &&
           data[3] <= 9 && data[4] < 60 && data[5] < 60;
      if (!ok) break;
      const auto ms = [](std::uint8_t h, std::uint8_t m, std::uint8_t s) {
        return ((std::int64_t{h} * 60 + m) * 60 + s) * 1000;
      };
      EmulatedClock c = clock_at(now_ms);
      c.left_ms = ms(data[0], data[1], data[2]);
      c.right_ms = ms(data[3], data[4], data[5]);
      c.left_flag = false;
      c.right_flag = false;
      const std::uint8_t flags = data[6];
      const bool run_left = (flags & clock::kRunLeft) != 0;
      const bool run_right = (flags & clock::kRunRight) != 0;
      if (run_left || run_right) c.right_lever_high = !run_left;
      c.running = (run_left || run_right) && (flags & clock::kPause) == 0;
      toggle_on_lever_ = (flags & clock::kToggleOnLever) != 0;
      settle_clock(now_ms);
      clock_ = c;
      clock_as_of_ms_ = now_ms;
      break;
    }
    case clock::kBeep:
      ok = data.size() == 1;
      if (ok) ++beeps_;
      break;
    default:
      ok = false;
      break;
  }
  if (!ok) ack.ack[0] = clock::kAckError;
  queue_ack(now_ms, ack);
}

void Emulator::bus_command(std::int64_t now_ms, std::span<const std::uint8_t> frame) {
  if (bus_checksum(frame.first(3)) != frame[3]) {
    ++stats_.bad_frames;
    return;
  }
  ++stats_.bus_commands;
  bus_mode_ = true;
  const std::uint8_t cmd = frame[0];
  const auto address = static_cast<std::uint16_t>(frame[1] << 7 | frame[2]);
  const bool for_us = address == bus_address_;
  const auto reply = [&](std::uint8_t id, std::span<const std::uint8_t> data) {
    emit_reply(encode_bus_reply(id, bus_address_, data));
  };
  const auto send_changes = [&](std::uint8_t id, std::size_t from, std::size_t to) {
    reply(id, eeprom_payload(from, to));
  };
  if (cmd == bus::kPing && (address == 0 || for_us)) {
    if (ignore_next_ping_) {
      ignore_next_ping_ = false;
    } else {
      reply(bus::kReplyPing, {});
    }
    return;
  }
  if (!for_us) return;
  switch (cmd) {
    case bus::kClock: {
      const Bytes t = clock_times_bytes(now_ms);
      reply(bus::kReplyBwTime, std::span<const std::uint8_t>(t).subspan(message::kHeaderSize));
      break;
    }
    case bus::kBoard:
      reply(bus::kReplyBoardDump, pieces_);
      break;
    case bus::kSendChanges:
      bus_changes_last_ = bus_changes_from_;
      send_changes(bus::kReplyChanges, bus_changes_from_, eeprom_.size());
      bus_changes_from_ = eeprom_.size();
      break;
    case bus::kRepeatChanges:
      send_changes(bus::kReplyChanges, bus_changes_last_, eeprom_.size());
      bus_changes_from_ = eeprom_.size();
      break;
    case bus::kSendFromStart:  // what SEND_CHANGES has sent since the start tag, sent again
      send_changes(bus::kReplyFromStart, bus_game_start_, bus_changes_from_);
      break;
    case bus::kSetStartGame:
      bus_game_start_ = eeprom_.size();
      bus_changes_from_ = bus_game_start_;
      bus_changes_last_ = bus_game_start_;
      reply(bus::kReplyStartWritten, {});
      break;
    case bus::kVersion: {
      const std::array<std::uint8_t, 2> v = {static_cast<std::uint8_t>(config_.version.major & kSevenBits),
                                             static_cast<std::uint8_t>(config_.version.minor & kSevenBits)};
      reply(bus::kReplyVersion, v);
      break;
    }
    case bus::kSendAll: {
      bus_changes_last_ = bus_changes_from_;
      send_changes(bus::kReplyChanges, bus_changes_from_, eeprom_.size());
      bus_changes_from_ = eeprom_.size();
      const Bytes t = clock_times_bytes(now_ms);
      reply(bus::kReplyBwTime, std::span<const std::uint8_t>(t).subspan(message::kHeaderSize));
      reply(bus::kReplyBoardDump, pieces_);
      break;
    }
    case bus::kIgnoreNextPing:
      ignore_next_ping_ = true;
      break;
    case bus::kEndBusMode:
      bus_mode_ = false;
      break;
    default:
      break;  // RESET, BRD_50B and unknown commands: nothing a host needs from an emulator
  }
}

}  // namespace eboard::drivers::dgt
