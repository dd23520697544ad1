// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// DGT e-board serial protocol: the byte values we use, named after what they do.
// Written from the facts in our research notes (shared/reference/hardware.md §1), not from DGT's header.
#pragma once

#include <cstddef>
#include <cstdint>

namespace eboard::drivers::dgt {

// Commands PC -> board (single-board mode). Each is one byte; some are followed by data.
// 0x4E (firmware loader) exists but is deliberately not named here: nothing in eboardd may send it.
namespace command {
inline constexpr std::uint8_t kReset = 0x40;             // go idle, stop automatic updates
inline constexpr std::uint8_t kSendClock = 0x41;         // one BWTIME
inline constexpr std::uint8_t kSendBoard = 0x42;         // one BOARD_DUMP
inline constexpr std::uint8_t kUpdate = 0x43;            // field updates + BWTIME at least once a second
inline constexpr std::uint8_t kUpdateBoard = 0x44;       // field updates only
inline constexpr std::uint8_t kSerialNumber = 0x45;      // reply SERIALNR
inline constexpr std::uint8_t kBusAddress = 0x46;        // reply BUSADRES
inline constexpr std::uint8_t kTrademark = 0x47;         // reply TRADEMARK
inline constexpr std::uint8_t kEepromMoves = 0x49;       // reply EE_MOVES (about 8 s at 9600 baud)
inline constexpr std::uint8_t kToBusMode = 0x4A;         // no reply
inline constexpr std::uint8_t kUpdateNice = 0x4B;        // like kUpdate, BWTIME only when time changes
inline constexpr std::uint8_t kBatteryStatus = 0x4C;     // reply BATTERY_STATUS (Bluetooth boards)
inline constexpr std::uint8_t kVersion = 0x4D;           // reply VERSION
inline constexpr std::uint8_t kLongSerialNumber = 0x55;  // reply LONG_SERIALNR
inline constexpr std::uint8_t kSetLeds = 0x60;           // Revelation II / Pegasus
inline constexpr std::uint8_t kClockMessage = 0x2B;      // wrapper for clock sub-commands
}  // namespace command

// Message ids board -> PC (the first byte of a message; bit 7 is always set).
namespace message {
inline constexpr std::uint8_t kBoardDump = 0x86;
inline constexpr std::uint8_t kBwTime = 0x8D;
inline constexpr std::uint8_t kFieldUpdate = 0x8E;
inline constexpr std::uint8_t kEepromMoves = 0x8F;
inline constexpr std::uint8_t kBusAddress = 0x90;
inline constexpr std::uint8_t kSerialNumber = 0x91;
inline constexpr std::uint8_t kTrademark = 0x92;
inline constexpr std::uint8_t kVersion = 0x93;
inline constexpr std::uint8_t kBatteryStatus = 0xA0;
inline constexpr std::uint8_t kLongSerialNumber = 0xA2;

// Total lengths (header included) of the fixed-size messages.
inline constexpr std::size_t kHeaderSize = 3;
inline constexpr std::size_t kBoardDumpSize = 67;
inline constexpr std::size_t kBwTimeSize = 10;
inline constexpr std::size_t kFieldUpdateSize = 5;
inline constexpr std::size_t kBusAddressSize = 5;
inline constexpr std::size_t kSerialNumberSize = 8;
inline constexpr std::size_t kVersionSize = 5;
inline constexpr std::size_t kLongSerialNumberSize = 13;
inline constexpr std::size_t kEepromMovesMaxSize = 0x1F03;  // 0x1F00-byte ring buffer + header
}  // namespace message

// Piece codes in BOARD_DUMP and FIELD_UPDATE.
namespace piece {
inline constexpr std::uint8_t kEmpty = 0x00;
inline constexpr std::uint8_t kWhitePawn = 0x01;
inline constexpr std::uint8_t kWhiteRook = 0x02;
inline constexpr std::uint8_t kWhiteKnight = 0x03;
inline constexpr std::uint8_t kWhiteBishop = 0x04;
inline constexpr std::uint8_t kWhiteKing = 0x05;
inline constexpr std::uint8_t kWhiteQueen = 0x06;
inline constexpr std::uint8_t kBlackPawn = 0x07;
inline constexpr std::uint8_t kBlackRook = 0x08;
inline constexpr std::uint8_t kBlackKnight = 0x09;
inline constexpr std::uint8_t kBlackBishop = 0x0A;
inline constexpr std::uint8_t kBlackKing = 0x0B;
inline constexpr std::uint8_t kBlackQueen = 0x0C;
// "Magic" result pieces some sets include.
inline constexpr std::uint8_t kDraw = 0x0D;
inline constexpr std::uint8_t kWhiteWins = 0x0E;
inline constexpr std::uint8_t kBlackWins = 0x0F;
inline constexpr std::uint8_t kMaxCode = 0x0F;
}  // namespace piece

// Squares: 0 = a8, 7 = h8, 8 = a7, 63 = h1 with the connector on White's left. The board never rotates its
// numbering; a board turned round needs `square ^ kRotate180`.
inline constexpr std::uint8_t kSquareCount = 64;
inline constexpr std::uint8_t kRotate180 = 63;

// Clock commands travel inside `2B <size> 03 <sub> <data...> 00`; size counts the bytes after itself.
namespace clock {
inline constexpr std::uint8_t kFrameStart = 0x03;
inline constexpr std::uint8_t kFrameEnd = 0x00;
inline constexpr std::uint8_t kDisplaySegments = 0x01;  // DGT XL 7-segment display
inline constexpr std::uint8_t kIcons = 0x02;
inline constexpr std::uint8_t kEnd = 0x03;  // back to the normal time display
inline constexpr std::uint8_t kButton = 0x08;
inline constexpr std::uint8_t kVersion = 0x09;
inline constexpr std::uint8_t kSetAndRun = 0x0A;
inline constexpr std::uint8_t kBeep = 0x0B;
inline constexpr std::uint8_t kDisplayText = 0x0C;  // DGT 3000 only

// SetAndRun flag bits.
inline constexpr std::uint8_t kRunLeft = 0x01;
inline constexpr std::uint8_t kRunRight = 0x02;
inline constexpr std::uint8_t kPause = 0x04;
inline constexpr std::uint8_t kToggleOnLever = 0x08;

// XL DISPLAY beep byte.
inline constexpr std::uint8_t kSegmentsBeep = 0x03;
inline constexpr std::uint8_t kSegmentsSilent = 0x01;

// Marker in the hours nibble of p0 or p3 of a BWTIME that says "this is an ACK, not a time".
inline constexpr std::uint8_t kAckMarker = 0x0A;

// ack0 values.
inline constexpr std::uint8_t kAckOk = 0x10;
inline constexpr std::uint8_t kAckError = 0x40;
// ack1 values >= 0x80 are automatic (unsolicited); below 0x80 ack1 echoes the command's sub id.
inline constexpr std::uint8_t kAutoAckThreshold = 0x80;
inline constexpr std::uint8_t kAutoReady = 0x81;
inline constexpr std::uint8_t kAutoButton = 0x88;
inline constexpr std::uint8_t kAutoMode8A = 0x8A;  // clock-mode related; meaning uncertain
inline constexpr std::uint8_t kAutoMode90 = 0x90;  // clock-mode related; meaning uncertain
// ack3 of a button ACK.
inline constexpr std::uint8_t kButtonBack = 0x31;
inline constexpr std::uint8_t kButtonPlus = 0x32;
inline constexpr std::uint8_t kButtonRun = 0x33;
inline constexpr std::uint8_t kButtonMinus = 0x34;
inline constexpr std::uint8_t kButtonOk = 0x35;
}  // namespace clock

// BWTIME p0 / p3 flag bits (the low nibble is the hours).
namespace clock_flag {
inline constexpr std::uint8_t kFlagFallen = 0x10;   // flag fallen and clock blocked at zero
inline constexpr std::uint8_t kTimePerMove = 0x20;  // Fischer / Bronstein indicator
inline constexpr std::uint8_t kFlagShown = 0x40;    // flag shown, clock may still run
}  // namespace clock_flag

// BWTIME p6 status bits.
namespace clock_status {
inline constexpr std::uint8_t kRunning = 0x01;
inline constexpr std::uint8_t kRightLeverHigh = 0x02;  // 0: left lever high
inline constexpr std::uint8_t kBatteryLow = 0x04;
inline constexpr std::uint8_t kTurnB3 = 0x08;  // real data: set while the left (p3..p5) clock counts down
inline constexpr std::uint8_t kTurnB4 = 0x10;  // real data: set while the right (p0..p2) clock counts down
inline constexpr std::uint8_t kNoClock = 0x20;
}  // namespace clock_status

// LED command (Revelation II, Pegasus): 60 04 <mode> <from> <to> 00.
namespace led {
inline constexpr std::uint8_t kLength = 0x04;
inline constexpr std::uint8_t kModeOff = 0x00;
inline constexpr std::uint8_t kModeOn = 0x01;
inline constexpr std::uint8_t kModeConfig = 0x02;
inline constexpr std::uint8_t kAllSquares = 0x40;  // `from` value that addresses every square
}  // namespace led

// On-board EEPROM log records (EE_MOVES payload, bus "changes" payload).
namespace eeprom {
inline constexpr std::size_t kRingSize = 0x1F00;
// 2-byte piece change: first byte 0x40..0x5F, then the square.
inline constexpr std::uint8_t kPieceChangeFirst = 0x40;
inline constexpr std::uint8_t kPieceChangeLast = 0x5F;
inline constexpr std::uint8_t kPieceChangeQuick = 0x10;  // less than about 250 ms since the previous record
// 3-byte time: first byte 0x60..0x69 (right display) or 0x70..0x79 (left display).
inline constexpr std::uint8_t kTimeRightFirst = 0x60;
inline constexpr std::uint8_t kTimeLeftFirst = 0x70;
inline constexpr std::uint8_t kTimeLeftBit = 0x10;
// 1-byte tags.
inline constexpr std::uint8_t kNop0 = 0x00;
inline constexpr std::uint8_t kPowerUp = 0x6A;
inline constexpr std::uint8_t kEof = 0x6B;
inline constexpr std::uint8_t kFourRows = 0x6C;  // four rows / Chess960 setup
inline constexpr std::uint8_t kEmptyBoard = 0x6D;
inline constexpr std::uint8_t kDownloaded = 0x6E;
inline constexpr std::uint8_t kStartPosition = 0x6F;
inline constexpr std::uint8_t kStartRotated = 0x7A;
inline constexpr std::uint8_t kStartTag = 0x7B;
inline constexpr std::uint8_t kWatchdogReset = 0x7C;
inline constexpr std::uint8_t kReserved7D = 0x7D;
inline constexpr std::uint8_t kReserved7E = 0x7E;
inline constexpr std::uint8_t kNop7F = 0x7F;
}  // namespace eeprom

// Bus mode: 4-byte commands [cmd][addr_hi][addr_lo][checksum], replies
// [id][len_hi][len_lo][addr_hi][addr_lo][data...][checksum]; checksum = sum of the previous bytes & 0x7F.
namespace bus {
inline constexpr std::uint8_t kClock = 0x81;
inline constexpr std::uint8_t kBoard = 0x82;
inline constexpr std::uint8_t kSendChanges = 0x83;
inline constexpr std::uint8_t kRepeatChanges = 0x84;
inline constexpr std::uint8_t kSetStartGame = 0x85;
inline constexpr std::uint8_t kSendFromStart = 0x86;
inline constexpr std::uint8_t kPing = 0x87;
inline constexpr std::uint8_t kEndBusMode = 0x88;
inline constexpr std::uint8_t kReset = 0x89;
inline constexpr std::uint8_t kIgnoreNextPing = 0x8A;
inline constexpr std::uint8_t kVersion = 0x8B;
inline constexpr std::uint8_t kBoard50B = 0x8C;
inline constexpr std::uint8_t kSendAll = 0x8D;  // changes, then clock, then board

inline constexpr std::uint8_t kReplyBoardDump = 0x83;
inline constexpr std::uint8_t kReplyBwTime = 0x84;
inline constexpr std::uint8_t kReplyChanges = 0x85;
inline constexpr std::uint8_t kReplyFromStart = 0x86;
inline constexpr std::uint8_t kReplyPing = 0x87;
inline constexpr std::uint8_t kReplyStartWritten = 0x88;
inline constexpr std::uint8_t kReplyVersion = 0x89;
inline constexpr std::uint8_t kReplyBoardDump50B = 0x8A;

inline constexpr std::size_t kCommandSize = 4;
inline constexpr std::size_t kReplyOverhead = 6;  // id, 2 length, 2 address, checksum
inline constexpr std::uint16_t kMaxAddress = 0x3FFF;
}  // namespace bus

inline constexpr std::uint8_t kMessageStartBit = 0x80;
inline constexpr std::uint8_t kSevenBits = 0x7F;

}  // namespace eboard::drivers::dgt
