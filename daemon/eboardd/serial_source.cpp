#include "daemon/eboardd/serial_source.hpp"

#include <algorithm>

#include <boost/asio/post.hpp>

namespace eboard::eboardd {

namespace {

template <class Handlers>
constexpr bool HAS_SENSOR_TAP = requires(Handlers& h) {
  h.on_sensor = std::function<void(const rules::SensorEvent&)>();
};

// Installs `tap` as the session's sensor tap when BoardSession offers one; false when it does not.
template <class Handlers>
bool set_sensor_tap(Handlers& h, std::function<void(const rules::SensorEvent&)> tap) {
  if constexpr (HAS_SENSOR_TAP<Handlers>) {
    h.on_sensor = std::move(tap);
    return true;
  } else {
    (void)h;
    (void)tap;
    return false;
  }
}

std::string strip_prefix(const std::string& text, const std::string& id) {
  const std::string prefix = "board " + id + ": ";
  return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
}

}  // namespace

bool SerialSource::has_sensor_tap() { return HAS_SENSOR_TAP<session::BoardSessionHandlers>; }

SerialSource::SerialSource(boost::asio::io_context& io, BoardSink& sink, config::BoardConfig board,
                           rules::Game game, journal::NewGameEntry current,
                           std::function<std::int64_t()> clock)
    : io_(io),
      sink_(sink),
      board_(std::move(board)),
      current_(std::move(current)),
      clock_(std::move(clock)),
      idle_game_(std::move(game)) {}

SerialSource::~SerialSource() {
  stop();
  *alive_ = false;
}

void SerialSource::make_session(rules::Game game) {
  session::BoardSessionConfig cfg;
  cfg.board_id = board_.id;
  cfg.link.device = board_.device();
  auto rc = journal::reconstruct_config(board_.id, current_);
  if (rc) cfg.rules = std::move(*rc);
  cfg.game = std::move(game);
  if (clock_) cfg.clock = clock_;

  session::BoardSessionHandlers h;
  h.on_event = [this](const rules::Event& e) {
    if (!in_bytes_ && session_) {
      sink_.tick(session_->now_ms());
      mark_busy();  // one tick for the burst of events of this timer
    }
    sink_.events({e});
  };
  const bool tapped = set_sensor_tap(h, [this](const rules::SensorEvent& e) { sink_.sensor(e); });
  h.on_wire = [this, tapped](std::int64_t t, drivers::Direction dir, std::span<const std::uint8_t> bytes) {
    mark_busy();
    if (!tapped) shadow_bytes(t, dir, bytes);
    sink_.wire(t, dir, bytes);
  };
  h.on_log = [this](session::LogLevel level, const std::string& text) {
    // The shadow decoder learns of a lost link here (the session logs it before reconnecting).
    if (shadow_connected_ && session_ && !session_->connected() && !has_sensor_tap()) {
      shadow_connected_ = false;
      shadow_.reset_link();
      sink_.sensor(rules::SensorEvent{session_->now_ms(), rules::DeviceLink{false}});
    }
    sink_.log(level == session::LogLevel::info ? BoardSink::Level::info : BoardSink::Level::warning,
              strip_prefix(text, board_.id));
  };
  session_ = std::make_unique<session::BoardSession>(io_, std::move(cfg), std::move(h));
}

void SerialSource::mark_busy() {
  if (in_bytes_) return;
  in_bytes_ = true;
  boost::asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
    if (!alive.expired()) in_bytes_ = false;
  });
}

void SerialSource::shadow_bytes(std::int64_t t, drivers::Direction dir, std::span<const std::uint8_t> bytes) {
  if (dir == drivers::Direction::ToBoard) {
    // The session sends its init commands right after each connect.
    static const std::vector<std::uint8_t> init = session::BoardSession::init_commands();
    if (bytes.size() == init.size() && std::equal(bytes.begin(), bytes.end(), init.begin())) {
      shadow_.reset_link();
      shadow_connected_ = true;
      sink_.sensor(rules::SensorEvent{t, rules::DeviceLink{true}});
    }
    return;
  }
  for (const rules::SensorEvent& e : shadow_.feed(t, bytes)) sink_.sensor(e);
}

void SerialSource::start() {
  if (running_) return;
  running_ = true;
  if (!session_) make_session(idle_game_);
  session_->start();
}

void SerialSource::stop() {
  if (!running_) return;
  running_ = false;
  if (session_) {
    idle_game_ = session_->game();
    session_->stop();
  }
}

const rules::Game& SerialSource::game() const { return session_ ? session_->game() : idle_game_; }

std::string SerialSource::link() const {
  if (!running_) return "stopped";
  return session_ && session_->connected() ? "connected" : "connecting";
}

nlohmann::json SerialSource::info() const {
  nlohmann::json j{
      {"device", board_.device()}, {"protocol", board_.protocol}, {"sensor_tap", has_sensor_tap()}};
  if (!session_) return j;
  if (auto p = session_->port_info()) {
    j["port"] = {{"name", p->name},
                 {"transport", std::string(io::to_string(p->transport))},
                 {"usb_serial", p->usb_serial},
                 {"usb_product", p->usb_product}};
    if (p->usb_vid) j["port"]["usb_vid"] = *p->usb_vid;
    if (p->usb_pid) j["port"]["usb_pid"] = *p->usb_pid;
  }
  const auto& ls = session_->link_stats();
  j["link_stats"] = {{"bytes_in", ls.bytes_in},       {"bytes_out", ls.bytes_out},
                     {"connects", ls.connects},       {"reconnects", ls.reconnects},
                     {"disconnects", ls.disconnects}, {"open_failures", ls.open_failures}};
  const auto& ss = session_->stats();
  j["session_stats"] = {
      {"sensor_events", ss.sensor_events}, {"events", ss.events}, {"dump_timeouts", ss.dump_timeouts}};
  return j;
}

tl::expected<void, std::string> SerialSource::new_game(const journal::NewGameEntry& g) {
  auto pos = journal::start_position(g);
  if (!pos) return tl::unexpected(pos.error());
  current_ = g;
  // A fresh reconstruction means a fresh session; reconnecting re-reads the board, as a new game should.
  bool was_running = running_;
  stop();
  session_.reset();
  shadow_ = daemon::DgtBoard();
  shadow_connected_ = false;
  idle_game_ = rules::Game(*pos);
  if (was_running) start();
  return {};
}

}  // namespace eboard::eboardd
