// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/encoder.hpp"

#include <gtest/gtest.h>

#include "drivers/dgt/bus.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {
namespace {

TEST(DgtEncoder, OneByteCommands) {
  EXPECT_EQ(encode::reset(), Bytes{0x40});
  EXPECT_EQ(encode::send_clock(), Bytes{0x41});
  EXPECT_EQ(encode::send_board(), Bytes{0x42});
  EXPECT_EQ(encode::update(), Bytes{0x43});
  EXPECT_EQ(encode::update_board(), Bytes{0x44});
  EXPECT_EQ(encode::serial_number(), Bytes{0x45});
  EXPECT_EQ(encode::bus_address(), Bytes{0x46});
  EXPECT_EQ(encode::trademark(), Bytes{0x47});
  EXPECT_EQ(encode::eeprom_moves(), Bytes{0x49});
  EXPECT_EQ(encode::to_bus_mode(), Bytes{0x4A});
  EXPECT_EQ(encode::update_nice(), Bytes{0x4B});
  EXPECT_EQ(encode::battery_status(), Bytes{0x4C});
  EXPECT_EQ(encode::version(), Bytes{0x4D});
  EXPECT_EQ(encode::long_serial_number(), Bytes{0x55});
}

TEST(DgtEncoder, NothingStartsTheBootloader) {
  const std::vector<Bytes> all{encode::reset(),
                               encode::send_clock(),
                               encode::send_board(),
                               encode::update(),
                               encode::update_board(),
                               encode::update_nice(),
                               encode::serial_number(),
                               encode::long_serial_number(),
                               encode::bus_address(),
                               encode::trademark(),
                               encode::eeprom_moves(),
                               encode::battery_status(),
                               encode::version(),
                               encode::to_bus_mode(),
                               encode::clear_leds(),
                               encode::clock_end().bytes,
                               encode::clock_button_query().bytes,
                               encode::clock_version_query().bytes};
  for (const auto& bytes : all) {
    ASSERT_FALSE(bytes.empty());
    EXPECT_NE(bytes[0], 0x4E);
  }
}

TEST(DgtEncoder, Leds) {
  EXPECT_EQ(*encode::set_leds(encode::LedMode::On, 12, 28), (Bytes{0x60, 0x04, 0x01, 12, 28, 0x00}));
  EXPECT_EQ(*encode::set_leds(encode::LedMode::Config, 0, 63), (Bytes{0x60, 0x04, 0x02, 0, 63, 0x00}));
  EXPECT_EQ(encode::clear_leds(), (Bytes{0x60, 0x04, 0x00, 0x40, 0x40, 0x00}));
  EXPECT_EQ(encode::set_leds(encode::LedMode::On, 64, 1).error(), EncodeError::SquareOutOfRange);
}

TEST(DgtEncoder, ClockSetAndRunMatchesTheContractExample) {
  // CONTRACTS §1: `2b 0a 03 0a 00 05 00 00 05 00 01 00` — both 5:00, left running.
  const auto cmd = encode::clock_set_and_run({.left_ms = 300'000, .right_ms = 300'000, .run_left = true});
  ASSERT_TRUE(cmd);
  EXPECT_EQ(cmd->bytes, (Bytes{0x2B, 0x0A, 0x03, 0x0A, 0x00, 0x05, 0x00, 0x00, 0x05, 0x00, 0x01, 0x00}));
  EXPECT_EQ(cmd->sub, clock::kSetAndRun);
}

TEST(DgtEncoder, ClockSetAndRunIsBinaryNotBcd) {
  const auto cmd = encode::clock_set_and_run({.left_ms = (1 * 3600 + 59 * 60 + 45) * 1000 + 999,
                                              .right_ms = 12'000,
                                              .run_right = true,
                                              .pause = true,
                                              .toggle_on_lever = true});
  ASSERT_TRUE(cmd);
  EXPECT_EQ(cmd->bytes, (Bytes{0x2B, 0x0A, 0x03, 0x0A, 1, 59, 45, 0, 0, 12, 0x02 | 0x04 | 0x08, 0x00}));
  EXPECT_EQ(encode::clock_set_and_run({.left_ms = 10 * 3600 * 1000}).error(), EncodeError::TimeOutOfRange);
  EXPECT_EQ(encode::clock_set_and_run({.right_ms = -1}).error(), EncodeError::TimeOutOfRange);
  EXPECT_TRUE(encode::clock_set_and_run({.left_ms = (9 * 3600 + 59 * 60 + 59) * 1000}));
}

TEST(DgtEncoder, ClockText) {
  const auto cmd = encode::clock_display_text("e2e4", 3);
  ASSERT_TRUE(cmd);
  EXPECT_EQ(cmd->bytes, (Bytes{0x2B, 0x0C, 0x03, 0x0C, 'e', '2', 'e', '4', ' ', ' ', ' ', ' ', 0x03, 0x00}));
  EXPECT_EQ(cmd->sub, clock::kDisplayText);
  EXPECT_EQ(encode::clock_display_text("123456789").error(), EncodeError::TextTooLong);
  EXPECT_EQ(encode::clock_display_text("caf\xc3\xa9").error(), EncodeError::TextNotPrintable);
  EXPECT_EQ(encode::clock_display_text("ok", 16).error(), EncodeError::ValueOutOfRange);
  EXPECT_EQ(encode::clock_display_text("")->bytes.size(), 14U);
}

TEST(DgtEncoder, ClockShortCommands) {
  EXPECT_EQ(encode::clock_end().bytes, (Bytes{0x2B, 0x03, 0x03, 0x03, 0x00}));
  EXPECT_EQ(encode::clock_button_query().bytes, (Bytes{0x2B, 0x03, 0x03, 0x08, 0x00}));
  EXPECT_EQ(encode::clock_version_query().bytes, (Bytes{0x2B, 0x03, 0x03, 0x09, 0x00}));
  EXPECT_EQ(encode::clock_version_query().sub, 0x09);
  EXPECT_EQ(encode::clock_beep(16)->bytes, (Bytes{0x2B, 0x04, 0x03, 0x0B, 16, 0x00}));
  EXPECT_EQ(encode::clock_beep(0).error(), EncodeError::ValueOutOfRange);
  EXPECT_EQ(encode::clock_beep(0x80).error(), EncodeError::ValueOutOfRange);
}

TEST(DgtEncoder, ClockSegmentsAndIcons) {
  const auto seg = encode::clock_display_segments({0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D}, 0x00, true);
  ASSERT_TRUE(seg);
  EXPECT_EQ(seg->bytes,
            (Bytes{0x2B, 0x0B, 0x03, 0x01, 0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x00, 0x03, 0x00}));
  EXPECT_EQ(encode::clock_display_segments({0x3F, 0, 0, 0, 0, 0}, 0, false)->bytes[11], 0x01);
  EXPECT_EQ(encode::clock_display_segments({0x80, 0, 0, 0, 0, 0}, 0, false).error(),
            EncodeError::ValueOutOfRange);

  const auto icons = encode::clock_icons({0x01, 0x02, 0x04, 0x08}, 0x01);
  ASSERT_TRUE(icons);
  EXPECT_EQ(icons->bytes,
            (Bytes{0x2B, 0x0B, 0x03, 0x02, 0x01, 0x02, 0x04, 0x08, 0x01, 0x00, 0x00, 0x00, 0x00}));
}

// The size byte counts everything after itself, from 03 to the final 00.
TEST(DgtEncoder, ClockFrameSizeIsConsistent) {
  const std::vector<ClockCommand> all{*encode::clock_display_text("hi", 0),
                                      *encode::clock_display_segments({0, 0, 0, 0, 0, 0}, 0, false),
                                      *encode::clock_set_and_run({}),
                                      *encode::clock_beep(1),
                                      encode::clock_end(),
                                      encode::clock_button_query(),
                                      encode::clock_version_query(),
                                      *encode::clock_icons({0, 0, 0, 0}, 0)};
  for (const auto& c : all) {
    ASSERT_GE(c.bytes.size(), 5U);
    EXPECT_EQ(c.bytes[0], 0x2B);
    EXPECT_EQ(c.bytes[1], c.bytes.size() - 2);
    EXPECT_EQ(c.bytes[2], 0x03);
    EXPECT_EQ(c.bytes[3], c.sub);
    EXPECT_EQ(c.bytes.back(), 0x00);
  }
}

TEST(DgtEncoder, BusCommands) {
  // hardware.md §1.7: a ping to address 0 is `87 00 00 07`; LiveChess probes version with `8B 00 00 0B`.
  EXPECT_EQ(*encode_bus_command(bus::kPing, 0), (BusCommandBytes{0x87, 0x00, 0x00, 0x07}));
  EXPECT_EQ(*encode_bus_command(bus::kVersion, 0), (BusCommandBytes{0x8B, 0x00, 0x00, 0x0B}));
  // Serial 01025 -> address 08 01; checksum (0x83 + 8 + 1) & 0x7F.
  EXPECT_EQ(*encode_bus_command(bus::kSendChanges, 1025), (BusCommandBytes{0x83, 0x08, 0x01, 0x0C}));
  EXPECT_EQ(*encode_bus_command(bus::kIgnoreNextPing, 0x3FFF), (BusCommandBytes{0x8A, 0x7F, 0x7F, 0x08}));
  EXPECT_EQ(encode_bus_command(bus::kPing, 0x4000).error(), EncodeError::AddressOutOfRange);
  EXPECT_EQ(encode_bus_command(0x40, 1).error(), EncodeError::NotABusCommand);
}

TEST(DgtEncoder, ErrorsHaveText) {
  for (auto e : {EncodeError::SquareOutOfRange, EncodeError::TimeOutOfRange, EncodeError::TextTooLong,
                 EncodeError::TextNotPrintable, EncodeError::ValueOutOfRange, EncodeError::AddressOutOfRange,
                 EncodeError::NotABusCommand}) {
    EXPECT_FALSE(to_string(e).empty());
  }
}

}  // namespace
}  // namespace eboard::drivers::dgt
