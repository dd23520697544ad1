// A real board on a serial port: helper-5's session::BoardSession (link with reconnects, DGT adapter,
// reconstruction, its timer) reporting to the board's sink.
//
// Sensor events for the journal: BoardSession does not hand out the sensor events it feeds to
// reconstruction (only events and wire bytes). If its handlers gain an `on_sensor` member
// (std::function<void(const rules::SensorEvent&)>), it is used automatically (see set_sensor_tap). Until
// then a shadow DgtBoard decodes the same received bytes into the same sensor events. The difference: the
// session drops field updates that arrive between a (re)connect and the board dump, which the shadow
// does not, so a replay can differ around reconnects; recovery then continues the game as published.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

#include "daemon/boards/dgt_board.hpp"
#include "daemon/config/config.hpp"
#include "daemon/eboardd/board_source.hpp"
#include "daemon/journal/machine.hpp"
#include "daemon/session/board_session.hpp"

namespace eboard::eboardd {

class SerialSource : public BoardSource {
 public:
  // Continues `game` (the recovered one) under the reconstruction settings of `current`.
  SerialSource(boost::asio::io_context& io, BoardSink& sink, config::BoardConfig board, rules::Game game,
               journal::NewGameEntry current, std::function<std::int64_t()> clock = {});
  ~SerialSource() override;

  void start() override;
  void stop() override;
  const rules::Game& game() const override;
  std::string link() const override;
  nlohmann::json info() const override;
  tl::expected<void, std::string> new_game(const journal::NewGameEntry& g) override;

  static bool has_sensor_tap();

 private:
  void make_session(rules::Game game);
  void mark_busy();
  void shadow_bytes(std::int64_t t, drivers::Direction dir, std::span<const std::uint8_t> bytes);

  boost::asio::io_context& io_;
  BoardSink& sink_;
  config::BoardConfig board_;
  journal::NewGameEntry current_;
  std::function<std::int64_t()> clock_;
  std::unique_ptr<session::BoardSession> session_;
  rules::Game idle_game_;  // shown before the session exists
  daemon::DgtBoard shadow_;
  bool shadow_connected_ = false;
  // Inside the handling of received bytes (until the event loop's next turn): events then are the bytes'
  // doing; events outside it come from the session's timer and are journaled after a tick.
  bool in_bytes_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  bool running_ = false;
};

}  // namespace eboard::eboardd
