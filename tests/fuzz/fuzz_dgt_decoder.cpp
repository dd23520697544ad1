// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Fuzzes the DGT single-board decoder, the bus decoder and the bus master with arbitrary bytes.
// The first input byte chooses how the rest is cut into chunks; decoding in chunks must give exactly what
// decoding in one piece gives, and every decoded value must be in range.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "drivers/dgt/bus.hpp"
#include "drivers/dgt/bus_master.hpp"
#include "drivers/dgt/clock_queue.hpp"
#include "drivers/dgt/decoder.hpp"
#include "drivers/dgt/eeprom.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace dgt = eboard::drivers::dgt;

namespace {

using eboard::fuzz::require;

using eboard::fuzz::feed_in_chunks;

void check_message(const dgt::Message& m) {
  if (const auto* fu = std::get_if<dgt::FieldUpdate>(&m)) {
    require(fu->square < 64 && fu->piece <= 15);
  } else if (const auto* ct = std::get_if<dgt::ClockTimes>(&m)) {
    require(ct->left.time_ms >= 0 && ct->left.time_ms < 10 * 3600 * 1000);
    require(ct->right.time_ms >= 0 && ct->right.time_ms < 10 * 3600 * 1000);
  } else if (const auto* dump = std::get_if<dgt::BoardDump>(&m)) {
    for (const auto p : dump->pieces) require(p <= 15);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t max_chunk = data[0];
  const std::span<const std::uint8_t> input(data + 1, size - 1);

  dgt::Decoder whole;
  const auto expected = whole.feed(input);
  for (const auto& m : expected) check_message(m);
  require(whole.stats().bytes_fed == input.size());

  dgt::Decoder chunked;
  std::vector<dgt::Message> got;
  feed_in_chunks(input, max_chunk, [&](auto chunk) { chunked.feed(chunk, got); });
  require(got == expected);
  require(chunked.stats().garbage_bytes == whole.stats().garbage_bytes);

  dgt::BusDecoder bus_whole;
  const auto frames = bus_whole.feed(input);
  dgt::BusDecoder bus_chunked;
  std::vector<dgt::BusFrame> bus_got;
  feed_in_chunks(input, max_chunk, [&](auto chunk) { bus_chunked.feed(chunk, bus_got); });
  require(bus_got == frames);

  (void)dgt::parse_eeprom_records(input);

  // The bus master and the clock queue take whatever the decoders make of the bytes, in virtual time.
  dgt::BusMaster master;
  master.add_board(1);
  if ((max_chunk & 1) != 0) master.start_discovery();
  dgt::ClockQueue clock;
  dgt::Decoder live;
  clock.enqueue(dgt::encode::clock_version_query());
  std::int64_t now = 0;
  feed_in_chunks(input, max_chunk, [&](auto chunk) {
    (void)master.poll(now);
    master.on_bytes(chunk, now);
    (void)clock.next_to_send(now);
    for (const auto& m : live.feed(chunk)) {
      if (const auto* ack = std::get_if<dgt::ClockAck>(&m)) (void)clock.on_ack(*ack, now);
    }
    now += 1 + chunk[0] * 8;
  });
  (void)master.take_events();
  (void)clock.take_results();
  return 0;
}
