#include "daemon/core/replay.hpp"

#include "daemon/boards/dgt_board.hpp"

namespace eboard::daemon {

using namespace eboard::rules;

tl::expected<ReplayResult, std::string> replay_capture(const drivers::Capture& capture,
                                                       ReconstructConfig cfg) {
  if (capture.info.protocol != "dgt")
    return tl::unexpected("protocol '" + capture.info.protocol + "' is not supported yet (only dgt)");
  if (!capture.info.board.empty()) cfg.board_id = capture.info.board;
  std::int64_t settle = cfg.settle_ms;
  DgtBoard board;
  Reconstructor rec(std::move(cfg));
  std::vector<Event> events;
  auto append = [&events](std::vector<Event>&& more) {
    events.insert(events.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  std::int64_t last_t = 0;
  for (const auto& record : capture.records) {
    last_t = record.t_ms;
    append(rec.advance(record.t_ms));
    if (record.direction != drivers::Direction::FromBoard) continue;  // what we sent tells nothing new
    for (const SensorEvent& s : board.feed(record.t_ms, record.bytes)) append(rec.on_sensor(s));
  }
  // Let the last movement settle, as a running daemon would a moment later.
  append(rec.advance(last_t + settle));
  return ReplayResult{std::move(events), rec.game()};
}

GameRecord game_record(const Game& game, const std::string& board_id) {
  GameRecord r;
  r.tags = {{"Event", "eboardd"}, {"Site", "?"},  {"Date", "????.??.??"}, {"Round", "?"},
            {"White", "?"},       {"Black", "?"}, {"Result", "*"},        {"Board", board_id}};
  r.start = game.start();
  Color mover = game.start().side_to_move();
  for (const PlyRecord& p : game.plies()) {
    RecordedMove m;
    m.move = p.move;
    if (p.clock.known()) m.clock_ms = mover == WHITE ? p.clock.white_ms : p.clock.black_ms;
    r.moves.push_back(std::move(m));
    mover = ~mover;
  }
  if (const auto& o = game.outcome()) {
    r.result = result_string(o->result);
    r.tags.push_back({"Termination", o->reason});
  }
  for (auto& t : r.tags)
    if (t.name == "Result") t.value = r.result;
  return r;
}

}  // namespace eboard::daemon
