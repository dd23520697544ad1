// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// `eboardctl verify`: whether a signed game record (archive, signature file, journals) is as eboardd signed
// it, and where it is not. `eboardctl key`: the public key and fingerprint a hall publishes.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/journal/rotation.hpp"
#include "daemon/journal/signing.hpp"
#include "daemon/tools/checks.hpp"
#include "daemon/tools/commands.hpp"

namespace eboard::tools {

namespace {

namespace fs = std::filesystem;
using journal::Finding;

// Signature files and key files are small; a signature file grows with its journals' checkpoints only.
constexpr std::size_t MAX_SIG_BYTES = std::size_t(64) << 20;

struct VerifyOptions {
  std::string file, sig, key, key_file;
  std::vector<std::string> journals;
  bool archive_only = false;
};

bool is_journal(const std::string& bytes) {
  return bytes.compare(0, journal::MAGIC.size() - 1, journal::MAGIC.substr(0, journal::MAGIC.size() - 1)) ==
         0;
}

// What the verdict is made of: every line printed, and the worst outcome.
struct Report {
  bool altered = false;
  bool unreadable = false;
  void line(const std::string& what, const std::string& text) {
    std::printf("%-10s %s\n", (what + ":").c_str(), text.c_str());
  }
  void finding(const std::string& what, const Finding& f) {
    line(what, (f.intact ? "ok    " : "FAIL  ") + f.text);
    altered |= !f.intact;
  }
  int exit_code() const { return unreadable ? 2 : altered ? 1 : 0; }
};

// The key the record is to be signed with, from --key (a key or a fingerprint) or --key-file.
struct ExpectedKey {
  std::optional<journal::PublicKey> key;
  std::string fingerprint;  // when given as one
};

tl::expected<ExpectedKey, std::string> expected_key(const VerifyOptions& o) {
  ExpectedKey e;
  if (!o.key_file.empty()) {
    auto text = read_input_file(o.key_file, 1 << 16);
    if (!text) return tl::unexpected(text.error());
    auto k = journal::parse_public_key(*text);
    if (!k) return tl::unexpected(o.key_file + ": " + k.error());
    e.key = *k;
  } else if (!o.key.empty()) {
    if (o.key.size() == 39 && std::count(o.key.begin(), o.key.end(), ':') == 7) {
      e.fingerprint = o.key;
      for (char& c : e.fingerprint) c = char(std::tolower(static_cast<unsigned char>(c)));
    } else {
      auto k = journal::parse_public_key(o.key);
      if (!k) return tl::unexpected("--key: " + k.error() + " or a fingerprint xxxx:xxxx:…");
      e.key = *k;
    }
  }
  return e;
}

void check_signature(const journal::SignedRecord& r, const ExpectedKey& expected, Report& out) {
  const std::string fp = r.key.fingerprint();
  if (!journal::record_signature_valid(r)) {
    out.finding("signature",
                {false,
                 "the signature does not match the record (the signature file, or the key in it, "
                 "was changed after signing); key in the file: " +
                     fp,
                 std::nullopt});
    return;
  }
  if (expected.key || !expected.fingerprint.empty()) {
    const bool same = expected.key ? *expected.key == r.key : expected.fingerprint == fp;
    if (!same) {
      out.finding("signature", {false,
                                "valid, but made with the key " + fp + ", not the one given (" +
                                    (expected.key ? expected.key->fingerprint() : expected.fingerprint) + ")",
                                std::nullopt});
      return;
    }
    out.line("signature", "valid, made with the key given (" + fp + ")");
    return;
  }
  out.line("signature", "valid, made with the key " + fp +
                            " (compare it with the hall's published fingerprint, or pass --key-file)");
}

// Where a sealed journal is to be found: named with --journal, else beside the archive only: the daemon's
// layout (state_dir/games/<archive> and state_dir/journal/<file>, ../journal from the archive's directory),
// or the archive's own directory; and, since a board's journal is kept under journal/<board>/ once its next
// game begins (rotation), the kept files there too. Never the path the signature says the daemon wrote it
// at: a copy of a record is checked against the journal that came with it, not against another one found
// on this machine.
std::vector<fs::path> journal_candidates(const journal::JournalSeal& seal, const fs::path& archive,
                                         const VerifyOptions& o, std::size_t seals) {
  std::vector<fs::path> out;
  for (const std::string& j : o.journals)
    if (fs::path(j).filename() == seal.file || (seals == 1 && o.journals.size() == 1)) out.emplace_back(j);
  if (!o.journals.empty()) return out;
  const fs::path dir = archive.parent_path().empty() ? fs::path(".") : archive.parent_path();
  const std::vector<fs::path> places{dir.parent_path() / "journal" / seal.file, dir / seal.file};
  out = places;
  for (const fs::path& current : places)
    for (const journal::KeptJournal& k : journal::kept_journals(current)) out.push_back(k.path);
  return out;
}

// Whether the first bytes of `bytes` are the ones sealed (the journal the signature speaks of).
bool is_sealed_journal(const journal::JournalSeal& seal, const std::string& bytes) {
  return bytes.size() >= seal.bytes &&
         journal::sha256_hex(std::string_view(bytes).substr(0, seal.bytes)) == seal.sha256;
}

void check_journals(const journal::SignedRecord& r, const fs::path& archive, const VerifyOptions& o,
                    Report& out) {
  for (const journal::JournalSeal& seal : r.journals) {
    const std::string what = "journal " + seal.file + " (board " + seal.board + ")";
    std::string looked;
    // The file whose first bytes are the sealed ones; else the first one found, to say where it differs.
    std::optional<std::pair<fs::path, std::string>> chosen;
    bool unreadable = false;
    for (const fs::path& p : journal_candidates(seal, archive, o, r.journals.size())) {
      std::error_code ec;
      if (!fs::exists(p, ec)) {
        looked += (looked.empty() ? "" : ", ") + p.string();
        continue;
      }
      auto bytes = read_input_file(p.string());
      if (!bytes) {
        if (!chosen) {
          out.line("journal", bytes.error());
          out.unreadable = unreadable = true;
          chosen.emplace(p, std::string());
          break;
        }
        continue;
      }
      const bool sealed = is_sealed_journal(seal, *bytes);
      if (!chosen || sealed) chosen.emplace(p, std::move(*bytes));
      if (sealed) break;
    }
    if (chosen && !unreadable) {
      out.line("journal", chosen->first.string() + " (board " + seal.board + ", checked)");
      Finding after;
      out.finding("  signed", journal::check_sealed_journal(seal, chosen->second, &after));
      if (!after.text.empty()) out.finding("  later", after);
    }
    if (!chosen) {
      std::string why = what;
      why += " not found beside the archive (looked at ";
      why += looked;
      why += "; the daemon wrote it at " + seal.path +
             "): give it with --journal FILE, or check the archive alone with --archive-only";
      out.line("journal", why);
      out.unreadable = true;
    }
  }
}

int run_verify(const VerifyOptions& o) {
  Report out;
  auto key = expected_key(o);
  if (!key) {
    std::fprintf(stderr, "eboardctl verify: %s\n", key.error().c_str());
    return 2;
  }
  auto input = read_input_file(o.file);
  if (!input) {
    std::fprintf(stderr, "eboardctl verify: %s\n", input.error().c_str());
    return 2;
  }
  const bool journal_input = is_journal(*input);
  fs::path archive = o.file;
  fs::path sig = o.sig;
  if (!journal_input && sig.empty()) {
    if (archive.extension() == ".sig") {
      sig = archive;
      archive.replace_extension();
    } else {
      sig = archive;
      sig += ".sig";
    }
  }
  if (journal_input && sig.empty()) {
    // A journal alone: its own checksums and links.
    out.line("journal", o.file + " (no signature given: checking its records and their links)");
    out.finding("  chain", journal::check_journal_chain(*input));
    std::printf("%s\n", out.altered ? "ALTERED" : "no alteration found in the chain");
    return out.exit_code();
  }
  auto sig_text = read_input_file(sig.string(), MAX_SIG_BYTES);
  if (!sig_text) {
    std::fprintf(stderr, "eboardctl verify: no signature to check: %s\n", sig_text.error().c_str());
    return 2;
  }
  out.line("record", sig.string());
  auto record = journal::parse_signature_file(*sig_text);
  if (!record) {
    out.finding("signature", {false, record.error(), std::nullopt});
    std::printf("ALTERED\n");
    return out.exit_code();
  }
  out.line(
      "subject", "board " + record->board + ", game " + std::to_string(record->game) + ", signed " + [&] {
        const std::time_t t = std::time_t(record->signed_ms / 1000);
        std::tm tm{};
        gmtime_r(&t, &tm);
        char buf[32];
        std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
        return std::string(buf);
      }());
  check_signature(*record, *key, out);
  if (!journal::record_signature_valid(*record))
    out.line("note",
             "the signature does not check: what follows compares the files with statements of the "
             "signature file that may themselves have been changed");

  if (journal_input) {
    // One journal against the signature: the seal of that file.
    const journal::JournalSeal* seal = nullptr;
    for (const auto& s : record->journals)
      if (s.file == fs::path(o.file).filename() || record->journals.size() == 1) seal = &s;
    if (!seal) {
      std::fprintf(stderr, "eboardctl verify: %s does not sign a journal named %s\n", sig.c_str(),
                   fs::path(o.file).filename().c_str());
      return 2;
    }
    out.line("journal", o.file + " (board " + seal->board + ")");
    Finding after;
    out.finding("  signed", journal::check_sealed_journal(*seal, *input, &after));
    if (!after.text.empty()) out.finding("  later", after);
  } else {
    if (archive.filename() != record->archive.file)
      out.line("note", "the signature names the archive " + record->archive.file + ", checked against " +
                           archive.string());
    auto text = archive == fs::path(o.file) ? std::move(input) : read_input_file(archive.string());
    if (!text) {
      std::fprintf(stderr, "eboardctl verify: %s\n", text.error().c_str());
      return 2;
    }
    out.line("archive", archive.string());
    out.finding("  content", journal::check_archive(record->archive, *text));
    if (o.archive_only)
      out.line("journals", "not checked (--archive-only)");
    else
      check_journals(*record, archive, o, out);
  }
  if (out.unreadable)
    std::printf("INCOMPLETE: some files could not be checked\n");
  else
    std::printf("%s\n", out.altered ? "ALTERED" : "INTACT: every file checks against the signature");
  return out.exit_code();
}

int run_key(const std::string& path) {
  fs::path p = path;
  std::error_code ec;
  if (fs::is_directory(p, ec))
    p = fs::exists(p / "keys", ec) ? p / "keys" / journal::PUBLIC_KEY_FILE : p / journal::PUBLIC_KEY_FILE;
  auto text = read_input_file(p.string(), MAX_SIG_BYTES);
  if (!text) {
    std::fprintf(stderr, "eboardctl key: %s\n", text.error().c_str());
    return 2;
  }
  tl::expected<journal::PublicKey, std::string> key;
  if (auto record = journal::parse_signature_file(*text))
    key = record->key;
  else
    key = journal::parse_public_key(*text);
  if (!key) {
    std::fprintf(stderr, "eboardctl key: %s: %s\n", p.c_str(), key.error().c_str());
    return 2;
  }
  std::printf("fingerprint %s\n%s\n", key->fingerprint().c_str(), key->text().c_str());
  return 0;
}

}  // namespace

void add_verify_commands(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Check a signed game record: whether an archive (PGN/BPGN), its signature file (<archive>.sig) and the "
      "journals it signs are as eboardd signed them, and where they are not. FILE is the archive, its .sig, "
      "or "
      "a journal (checked alone: its checksums and links; or against --sig). Exit 0: everything checks; 1: "
      "something was altered (said where: the archive's line, the journal's byte and record); 2: bad usage "
      "or "
      "a file that cannot be read.");
  cmd->add_option("file", o->file, "the archive, its .sig, or a journal")->required();
  cmd->add_option("--sig", o->sig, "the signature file (default: FILE.sig)");
  cmd->add_option("--journal", o->journals,
                  "a journal the signature covers (default: the one beside the archive, in ../journal from "
                  "the archive's directory or in that directory, kept files of later games included; never "
                  "looked for elsewhere); repeatable");
  auto* key =
      cmd->add_option("--key", o->key,
                      "the hall's public key (ed25519:<hex>) or its fingerprint: the signature must be "
                      "made with it");
  cmd->add_option("--key-file", o->key_file, "the hall's public key file (eboardd.pub)")->excludes(key);
  cmd->add_flag("--archive-only", o->archive_only, "check the archive and signature, not the journals");
  cmd->callback([o, &exit_code] { exit_code = run_verify(*o); });

  auto path = std::make_shared<std::string>("/var/lib/eboardd");
  CLI::App* k = app.add_subcommand(
      "key",
      "Print the fingerprint and public key of a daemon's signing key, to publish or to compare: PATH is a "
      "state directory (its keys/eboardd.pub), a .pub file or a signature file.");
  k->add_option("path", *path, "state directory, eboardd.pub or a .sig file (default: /var/lib/eboardd)");
  k->callback([path, &exit_code] { exit_code = run_key(*path); });
}

}  // namespace eboard::tools
