// Test support: ManualSource (fed by the test) that also takes control input, as the daemon's real
// sources do (GameMachine::control).
#pragma once

#include "../daemon_journal/manual_source.hpp"

namespace eboard::test_support {

class ControlSource : public eboardd::BoardSource {
 public:
  ControlSource(eboardd::BoardSink& sink, journal::GameMachine machine)
      : sink_(sink), machine_(std::move(machine)) {}

  void start() override { running_ = true; }
  void stop() override { running_ = false; }
  const rules::Game& game() const override { return machine_.game(); }
  std::string link() const override { return running_ ? "manual" : "stopped"; }
  nlohmann::json info() const override { return {{"kind", "manual"}}; }
  tl::expected<void, std::string> new_game(const journal::NewGameEntry& g) override {
    return machine_.new_game(g);
  }
  tl::expected<std::vector<rules::Event>, std::string> control(const journal::ControlEntry& c) override {
    return machine_.control(c);
  }
  const rules::Reconstructor* reconstructor() const override {
    return machine_.has_game() ? &machine_.reconstructor() : nullptr;
  }

  void feed(const rules::SensorEvent& e, std::int64_t late_ms = 3) {
    while (auto d = machine_.next_deadline()) {
      if (*d + late_ms >= e.t_ms) break;
      auto evs = machine_.advance(*d + late_ms);
      if (evs.empty()) continue;
      sink_.tick(*d + late_ms);
      sink_.events(evs);
    }
    sink_.sensor(e);
    sink_.events(machine_.on_sensor(e));
  }

 private:
  eboardd::BoardSink& sink_;
  journal::GameMachine machine_;
  bool running_ = false;
};

}  // namespace eboard::test_support
