// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// `eboardctl replay`: captures through the daemon's own driver, reconstruction and rules code, in virtual
// time; events as JSON Lines on stdout, the game record with --pgn (CONTRACTS §2).
#include <array>
#include <cstdio>
#include <fstream>

#include "daemon/core/event_json.hpp"
#include "daemon/session/replay.hpp"
#include "daemon/tools/checks.hpp"
#include "daemon/tools/commands.hpp"

namespace eboard::tools {
namespace {

struct Options {
  std::string rules;
  std::string variant;
  std::string pgn;
  std::vector<std::string> captures;
};

// A capture file, checked before it is read whole (a non-regular file or one too large is refused).
tl::expected<drivers::Capture, std::string> read_capture(const std::string& path) {
  auto text = read_input_file(path);
  if (!text) return tl::unexpected(text.error());
  auto capture = drivers::parse_capture(*text);
  if (!capture) return tl::unexpected(path + ": " + capture.error());
  return capture;
}

// Two captures: a bughouse match (board A, board B); events of both boards, BPGN with --pgn.
int run_match(const Options& o) {
  std::string profile_name = o.rules.empty() ? "bughouse-fqe" : o.rules;
  auto profile = rules::profile_by_name(profile_name);
  if (!profile || profile->variant != rules::Variant::Bughouse) {
    std::fprintf(
        stderr,
        "eboardctl replay: '%s' is not a bughouse rules profile (bughouse-fqe, bughouse-clock-move)\n",
        profile_name.c_str());
    return 2;
  }
  if (!o.variant.empty() && o.variant != "bughouse") {
    std::fprintf(stderr, "eboardctl replay: two captures are a bughouse match, not variant '%s'\n",
                 o.variant.c_str());
    return 2;
  }
  rules::MatchConfig cfg;
  cfg.board.profile = *profile;
  std::array<drivers::Capture, 2> captures;
  for (std::size_t i = 0; i < 2; ++i) {
    auto capture = read_capture(o.captures[i]);
    if (!capture) {
      std::fprintf(stderr, "eboardctl replay: %s\n", capture.error().c_str());
      return 2;
    }
    captures[i] = std::move(*capture);
  }
  auto result = session::replay_match(captures[0], captures[1], cfg);
  if (!result) {
    std::fprintf(stderr, "eboardctl replay: %s\n", result.error().c_str());
    return 2;
  }
  for (const auto& e : result->events) std::printf("%s\n", daemon::to_json_line(e).c_str());
  if (!o.pgn.empty()) {
    auto text = rules::write_bpgn(result->record);
    std::ofstream out(o.pgn, std::ios::binary | std::ios::trunc);
    if (!text || !(out << *text)) {
      std::fprintf(stderr, "eboardctl replay: cannot write %s%s%s\n", o.pgn.c_str(), text ? "" : ": ",
                   text ? "" : text.error().c_str());
      return 2;
    }
  }
  return 0;
}

int run(const Options& o) {
  if (o.captures.size() == 2) return run_match(o);
  std::string profile_name = o.rules.empty() ? "fide-standard" : o.rules;
  auto profile = rules::profile_by_name(profile_name);
  if (!profile) {
    std::fprintf(stderr, "eboardctl replay: unknown rules profile '%s'\n", profile_name.c_str());
    return 2;
  }
  rules::ReconstructConfig cfg;
  cfg.profile = *profile;
  if (o.variant == "chess960")
    cfg.chess960 = true;
  else if (o.variant == "crazyhouse")
    cfg.profile.variant = rules::Variant::Crazyhouse;
  else if (o.variant == "bughouse")
    cfg.profile.variant = rules::Variant::Bughouse;
  auto capture = read_capture(o.captures[0]);
  if (!capture) {
    std::fprintf(stderr, "eboardctl replay: %s\n", capture.error().c_str());
    return 2;
  }
  auto result = session::replay_capture(*capture, cfg);
  if (!result) {
    std::fprintf(stderr, "eboardctl replay: %s: %s\n", o.captures[0].c_str(), result.error().c_str());
    return 2;
  }
  for (const auto& e : result->events) std::printf("%s\n", daemon::to_json_line(e).c_str());
  if (!o.pgn.empty()) {
    auto text = rules::write_pgn(daemon::game_record(result->game, capture->info.board));
    std::ofstream out(o.pgn, std::ios::binary | std::ios::trunc);
    if (!text || !(out << *text)) {
      std::fprintf(stderr, "eboardctl replay: cannot write %s%s%s\n", o.pgn.c_str(), text ? "" : ": ",
                   text ? "" : text.error().c_str());
      return 2;
    }
  }
  return 0;
}

}  // namespace

void add_replay_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("replay", "Replay captures through the reconstruction, in virtual time");
  cmd->add_option(
      "--rules", o->rules,
      "rules profile: fide-standard (default for one board), fide-rapid, fide-blitz, bughouse-fqe "
      "(default for a match), bughouse-clock-move");
  cmd->add_option("--variant", o->variant, "chess, chess960, crazyhouse or bughouse")
      ->check(CLI::IsMember({"chess", "chess960", "crazyhouse", "bughouse"}));
  cmd->add_option("--pgn", o->pgn, "write the game record here (PGN; BPGN for a match)");
  cmd->add_option("captures", o->captures, "CAPTURE [CAPTURE_B]: one capture is a game, two a bughouse match")
      ->required()
      ->expected(1, 2)
      ->check(CLI::ExistingFile);
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace eboard::tools
