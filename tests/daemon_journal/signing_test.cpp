// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Signed game records (daemon/journal/signing.hpp): the key files, and that one changed byte anywhere in an
// archive, its signature file or its journal is found and located, while the untouched files check.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "daemon/journal/signing.hpp"

namespace eboard::journal {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("eboard-signing-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A journal of `n` records of varied types and lengths.
std::string make_journal(int n, int first = 0) {
  std::string bytes(MAGIC);
  Framer f;
  for (int i = first; i < first + n; ++i)
    f.append(bytes, "SERA"[i % 4], "record " + std::to_string(i) + std::string(std::size_t(i % 13), 'x'));
  return bytes;
}

const std::string PGN =
    "[Event \"eboardd\"]\n[Site \"?\"]\n[Date \"2026.11.25\"]\n[Round \"?\"]\n[White \"A\"]\n[Black \"B\"]\n"
    "[Result \"1-0\"]\n[Board \"A\"]\n\n1. e4 {[%clk 0:05:00]} e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n";

// A seal as the signature file states it.
std::string journal_json_text(const JournalSeal& seal) {
  SignedRecord r;
  r.journals.push_back(seal);
  auto parsed = parse_signature_file(signature_file_text(r, SigningKey::generate()));
  const JournalSeal& j = parsed.value().journals.at(0);
  std::string out = j.file + " " + j.path + " " + std::to_string(j.bytes) + " " + std::to_string(j.records) +
                    " " + chain_hex(j.chain) + " " + j.sha256;
  for (const Checkpoint& c : j.checkpoints)
    out += " " + std::to_string(c.records) + "@" + std::to_string(c.offset) + ":" + chain_hex(c.chain);
  return out;
}

struct Signed {
  std::string sig;
  JournalSeal seal;
};

Signed sign(const SigningKey& key, const std::string& pgn, const std::string& journal) {
  auto seal = seal_journal_bytes(journal);
  EXPECT_TRUE(seal.has_value()) << seal.error();
  seal->board = "A";
  seal->file = "A.journal";
  seal->path = "/var/lib/eboardd/journal/A.journal";
  SignedRecord r;
  r.archive = seal_archive("A-20261125T150000Z-1.pgn", pgn);
  r.journals.push_back(*seal);
  r.board = "A";
  r.game = 1;
  r.signed_ms = 1795618800000;
  return {signature_file_text(r, key), *seal};
}

// Everything verify checks: empty when all of it holds, else the first finding.
std::string verify(const std::string& sig, const std::string& pgn, const std::string& journal,
                   const PublicKey& expected) {
  auto r = parse_signature_file(sig);
  if (!r) return r.error();
  if (!record_signature_valid(*r)) return "signature invalid";
  if (!(r->key == expected)) return "another key";
  if (auto a = check_archive(r->archive, pgn); !a.intact) return a.text;
  if (auto j = check_sealed_journal(r->journals.at(0), journal); !j.intact) return j.text;
  return {};
}

// A number no double holds (the archive's size written 12e780) is refused as any other damage, not thrown
// out of the reader (eboardctl verify ended on an uncaught exception; fuzz_verify found it).
TEST(SignatureFile, ANumberPastADoublesRangeIsRefusedWithAReason) {
  const SigningKey key = SigningKey::generate();
  std::string sig = sign(key, PGN, make_journal(3)).sig;
  const std::size_t at = sig.find("\"bytes\": ") + 9;
  sig.replace(at, sig.find(',', at) - at, "12e780");
  auto r = parse_signature_file(sig);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("not a signature file"), std::string::npos) << r.error();
}

TEST(SigningKeys, SecretAndPublicTextRoundTrip) {
  SigningKey k = SigningKey::generate();
  auto again = SigningKey::parse(k.secret_text());
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->public_key(), k.public_key());
  auto pub = parse_public_key(k.public_key().text());
  ASSERT_TRUE(pub) << pub.error();
  EXPECT_EQ(*pub, k.public_key());
  EXPECT_EQ(k.public_key().fingerprint().size(), 39u);  // 8 groups of 4 hex digits
  EXPECT_NE(k.public_key().fingerprint(), SigningKey::generate().public_key().fingerprint());
  const auto sig = k.sign("message");
  EXPECT_TRUE(signature_valid(k.public_key(), "message", sig));
  EXPECT_FALSE(signature_valid(k.public_key(), "messagf", sig));
  EXPECT_FALSE(signature_valid(SigningKey::generate().public_key(), "message", sig));
}

TEST(SigningKeys, EveryChangedDigitOfTheSecretKeyIsRefused) {
  SigningKey k = SigningKey::generate();
  const std::string text = k.secret_text();
  const std::size_t start = text.find("ed25519-secret:") + 15;
  for (std::size_t i = start; i < start + 128; ++i) {
    std::string bad = text;
    bad[i] = bad[i] == '0' ? '1' : '0';
    EXPECT_FALSE(SigningKey::parse(bad)) << "digit " << i - start;
  }
  EXPECT_FALSE(SigningKey::parse("garbage"));
  EXPECT_FALSE(SigningKey::parse(""));
  EXPECT_FALSE(parse_public_key("ed25519:1234"));
}

TEST(SigningKeys, MadeOnceKeptAfterwardsNeverReplaced) {
  const fs::path dir = temp_dir("keys") / "keys";
  auto k = load_or_create_key(dir);
  ASSERT_TRUE(k) << k.error();
  struct stat st {};
  ASSERT_EQ(::stat((dir / SECRET_KEY_FILE).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto again = load_or_create_key(dir);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->public_key(), k->public_key());

  // The public half is written again when missing.
  fs::remove(dir / PUBLIC_KEY_FILE);
  ASSERT_TRUE(load_or_create_key(dir));
  EXPECT_EQ(parse_public_key(read_file(dir / PUBLIC_KEY_FILE)).value(), k->public_key());

  // A garbled key is an error and stays as it is.
  const std::string garbled = "ed25519-secret:00\n";
  write_file(dir / SECRET_KEY_FILE, garbled);
  auto bad = load_or_create_key(dir);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("never replaces"), std::string::npos) << bad.error();
  EXPECT_EQ(read_file(dir / SECRET_KEY_FILE), garbled);

  // A public key that is not the secret key's half.
  write_file(dir / SECRET_KEY_FILE, SigningKey::generate().secret_text());
  bad = load_or_create_key(dir);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("not the public half"), std::string::npos) << bad.error();

  // The secret key gone but its public half there: lost, not to be silently made anew.
  fs::remove(dir / SECRET_KEY_FILE);
  bad = load_or_create_key(dir);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("missing"), std::string::npos) << bad.error();
  EXPECT_FALSE(fs::exists(dir / SECRET_KEY_FILE));

  // Unreadable: a directory where the key should be.
  fs::remove(dir / PUBLIC_KEY_FILE);
  fs::create_directory(dir / SECRET_KEY_FILE);
  EXPECT_FALSE(load_or_create_key(dir));
  fs::remove_all(dir.parent_path());
}

TEST(Signing, UntouchedRecordChecks) {
  const SigningKey key = SigningKey::generate();
  const std::string journal = make_journal(600);
  const Signed s = sign(key, PGN, journal);
  EXPECT_EQ(s.seal.records, 600u);
  ASSERT_EQ(s.seal.checkpoints.size(), 2u);
  EXPECT_EQ(s.seal.checkpoints[0].records, 256u);
  EXPECT_EQ(verify(s.sig, PGN, journal, key.public_key()), "");
  auto r = parse_signature_file(s.sig);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->archive.line_hashes.size(), 12u);  // the empty text after the last newline is a line
  EXPECT_EQ(r->journals.at(0).path, "/var/lib/eboardd/journal/A.journal");
  EXPECT_TRUE(check_journal_chain(journal).intact);
  // Another key's signature checks as a signature, but is not the hall's.
  const SigningKey other = SigningKey::generate();
  EXPECT_EQ(verify(sign(other, PGN, journal).sig, PGN, journal, key.public_key()), "another key");
}

TEST(Signing, EveryChangedByteOfTheArchiveIsFoundAtItsLine) {
  const SigningKey key = SigningKey::generate();
  const std::string journal = make_journal(20);
  const Signed s = sign(key, PGN, journal);
  auto r = parse_signature_file(s.sig);
  ASSERT_TRUE(r);
  for (std::uint8_t flip : {std::uint8_t(0x01), std::uint8_t(0x80), std::uint8_t(0x2A)}) {
    for (std::size_t i = 0; i < PGN.size(); ++i) {
      std::string bad = PGN;
      bad[i] = char(static_cast<std::uint8_t>(bad[i]) ^ flip);
      const Finding f = check_archive(r->archive, bad);
      ASSERT_FALSE(f.intact) << "byte " << i;
      const auto line = std::uint64_t(std::count(PGN.begin(), PGN.begin() + std::ptrdiff_t(i), '\n')) + 1;
      ASSERT_TRUE(f.at.has_value()) << f.text;
      EXPECT_EQ(*f.at, line) << "byte " << i << ": " << f.text;
    }
  }
  // A line removed, a line added.
  std::string shorter = PGN.substr(0, PGN.find("[Site"));
  shorter += PGN.substr(PGN.find("[Date"));
  EXPECT_EQ(check_archive(r->archive, shorter).at, 2u);
  EXPECT_EQ(check_archive(r->archive, PGN + "\nx").at, 13u);
  EXPECT_NE(check_archive(r->archive, PGN.substr(0, PGN.size() - 1)).text.find("line 12"), std::string::npos);
}

TEST(Signing, EveryChangedByteOfTheSignatureFileIsFound) {
  const SigningKey key = SigningKey::generate();
  const std::string journal = make_journal(20);
  const Signed s = sign(key, PGN, journal);
  std::size_t unparsable = 0;
  for (std::uint8_t flip : {std::uint8_t(0x01), std::uint8_t(0x20)}) {
    for (std::size_t i = 0; i < s.sig.size(); ++i) {
      std::string bad = s.sig;
      bad[i] = char(static_cast<std::uint8_t>(bad[i]) ^ flip);
      const std::string why = verify(bad, PGN, journal, key.public_key());
      ASSERT_NE(why, "") << "byte " << i << " of the signature file";
      unparsable += parse_signature_file(bad) ? 0 : 1;
    }
  }
  // Both kinds of finding happen: bytes of the signed values (the signature fails), and the JSON around them.
  EXPECT_GT(unparsable, 0u);
  EXPECT_LT(unparsable, 2 * s.sig.size());
  // A whitespace change keeps the JSON's meaning: still found, where the text first differs ("{\n  " then a
  // space where the quote of the first member was).
  std::string spaced = s.sig;
  spaced.insert(spaced.find('\n') + 1, " ");
  auto r = parse_signature_file(spaced);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("at byte 4"), std::string::npos) << r.error();
}

// The record that holds byte `at`: [start, end).
std::pair<std::uint64_t, std::uint64_t> record_around(const std::string& journal, std::uint64_t at) {
  const JournalScan scan = scan_journal_bytes(journal);
  std::uint64_t start = 0;
  for (const FileRecord& r : scan.records) {
    if (r.offset > at) return {start, r.offset};
    start = r.offset;
  }
  return {start, journal.size()};
}

void expect_journal_flip_found(const SigningKey& key, const Signed& s, const std::string& journal,
                               std::size_t i, std::uint8_t flip) {
  std::string bad = journal;
  bad[i] = char(static_cast<std::uint8_t>(bad[i]) ^ flip);
  const Finding f = check_sealed_journal(s.seal, bad);
  ASSERT_FALSE(f.intact) << "byte " << i;
  ASSERT_TRUE(f.at.has_value()) << f.text;
  if (i < MAGIC.size()) {
    EXPECT_EQ(*f.at, i) << f.text;
  } else {
    const auto [start, end] = record_around(journal, i);
    EXPECT_GE(*f.at, start) << "byte " << i << ": " << f.text;
    EXPECT_LT(*f.at, end) << "byte " << i << ": " << f.text;
  }
  EXPECT_NE(verify(s.sig, PGN, bad, key.public_key()), "");
}

TEST(Signing, EveryChangedByteOfASmallJournalIsFoundInItsRecord) {
  const SigningKey key = SigningKey::generate();
  const std::string journal = make_journal(40);
  const Signed s = sign(key, PGN, journal);
  for (std::size_t i = 0; i < journal.size(); ++i) {
    expect_journal_flip_found(key, s, journal, i, 0x01);
    expect_journal_flip_found(key, s, journal, i, 0xFF);
  }
}

TEST(Signing, RandomChangedBytesOfALargeJournalAreFound) {
  const SigningKey key = SigningKey::generate();
  const std::string journal = make_journal(3000);
  const Signed s = sign(key, PGN, journal);
  std::mt19937 rng(20261125);
  std::uniform_int_distribution<std::size_t> at(0, journal.size() - 1);
  std::uniform_int_distribution<int> value(1, 255);
  for (int n = 0; n < 500; ++n) expect_journal_flip_found(key, s, journal, at(rng), std::uint8_t(value(rng)));
}

TEST(Signing, AJournalChainedAnewIsLocatedBetweenTwoCheckpoints) {
  const SigningKey key = SigningKey::generate();
  const std::string journal = make_journal(1000);
  const Signed s = sign(key, PGN, journal);
  ASSERT_EQ(s.seal.checkpoints.size(), 3u);
  // Record 300 (in the second stretch of 256) changed, and every record framed and chained anew: each record
  // checks and links, so only the signed checkpoints show it.
  JournalScan scan = scan_journal_bytes(journal);
  scan.records[299].body = "record 299 rewritten";
  std::string forged(MAGIC);
  Framer f;
  for (const FileRecord& r : scan.records) f.append(forged, r.type, r.body);
  EXPECT_TRUE(check_journal_chain(forged).intact);
  const Finding found = check_sealed_journal(s.seal, forged);
  ASSERT_FALSE(found.intact);
  EXPECT_EQ(found.at, s.seal.checkpoints[0].offset) << found.text;
  EXPECT_NE(found.text.find("records 257 to 512"), std::string::npos) << found.text;
  // A record removed from the last stretch, the rest chained anew.
  scan = scan_journal_bytes(journal);
  scan.records.erase(scan.records.begin() + 900);
  forged = MAGIC;
  Framer g;
  for (const FileRecord& r : scan.records) g.append(forged, r.type, r.body);
  const Finding removed = check_sealed_journal(s.seal, forged);
  ASSERT_FALSE(removed.intact);
  EXPECT_EQ(removed.at, s.seal.checkpoints[2].offset) << removed.text;
}

TEST(Signing, AShorterJournalIsFoundAndALongerOneChecksItsSignedPart) {
  const SigningKey key = SigningKey::generate();
  const std::string journal = make_journal(50);
  const Signed s = sign(key, PGN, journal);
  const Finding cut = check_sealed_journal(s.seal, journal.substr(0, journal.size() - 10));
  ASSERT_FALSE(cut.intact);
  EXPECT_NE(cut.text.find("shorter than signed"), std::string::npos) << cut.text;

  // Later games append to the journal: the signed part still checks; what follows is told apart.
  std::string longer = journal;
  Framer f(2, s.seal.chain);
  for (int i = 0; i < 5; ++i) f.append(longer, 'E', "later " + std::to_string(i));
  Finding after;
  EXPECT_TRUE(check_sealed_journal(s.seal, longer, &after).intact);
  EXPECT_TRUE(after.intact) << after.text;
  EXPECT_NE(after.text.find("5 records"), std::string::npos) << after.text;
  longer[journal.size() + 30] ^= 1;
  EXPECT_TRUE(check_sealed_journal(s.seal, longer, &after).intact);
  EXPECT_FALSE(after.intact);
  EXPECT_EQ(after.at, journal.size()) << after.text;
}

TEST(Signing, AJournalWithoutSignatureIsCheckedLinkByLink) {
  const std::string journal = make_journal(30);
  EXPECT_TRUE(check_journal_chain(journal).intact);
  for (std::size_t i = 0; i < journal.size(); ++i) {
    std::string bad = journal;
    bad[i] ^= 0x10;
    const Finding f = check_journal_chain(bad);
    ASSERT_FALSE(f.intact) << "byte " << i;
    ASSERT_TRUE(f.at.has_value());
    if (i >= MAGIC.size()) {
      const auto [start, end] = record_around(journal, i);
      EXPECT_GE(*f.at, start) << f.text;
      EXPECT_LT(*f.at, end) << f.text;
    }
  }
  // A record removed whole: the next one does not link.
  const JournalScan scan = scan_journal_bytes(journal);
  std::string removed = journal.substr(0, scan.records[10].offset) + journal.substr(scan.records[11].offset);
  const Finding f = check_journal_chain(removed);
  ASSERT_FALSE(f.intact);
  EXPECT_EQ(f.at, scan.records[10].offset) << f.text;
}

TEST(Signing, ASealCarriedOnAsTheJournalGrowsIsTheSealOfTheWholeFile) {
  const fs::path dir = temp_dir("sealer");
  const fs::path path = dir / "A.journal";
  const std::string journal = make_journal(700);
  JournalSealer sealer;
  std::uint64_t expected_read = 0;
  // Sealed at record boundaries as a board's games end: each time only the new bytes are read.
  const JournalScan scan = scan_journal_bytes(journal);
  for (std::size_t upto : {std::size_t(10), std::size_t(300), std::size_t(301), std::size_t(699)}) {
    const std::uint64_t end = scan.records[upto].offset;
    write_file(path, journal);
    auto s = sealer.seal(path, end, "A");
    ASSERT_TRUE(s) << s.error();
    auto whole = seal_journal(path, end, "A");
    ASSERT_TRUE(whole) << whole.error();
    EXPECT_EQ(journal_json_text(*s), journal_json_text(*whole)) << "up to record " << upto;
    expected_read = end;
    EXPECT_EQ(sealer.bytes_read(), expected_read);
  }
  // Rewritten (a new file renamed over it, as rewrite_intact does): read whole again, and a record changed
  // in the part sealed before is not carried over.
  std::string changed = journal;
  changed[scan.records[5].offset + RECORD_OVERHEAD] ^= 1;
  write_file(dir / "new", changed);
  fs::rename(dir / "new", path);
  EXPECT_FALSE(sealer.seal(path, journal.size(), "A"));
  write_file(dir / "new", journal);
  fs::rename(dir / "new", path);
  auto s = sealer.seal(path, journal.size(), "A");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(journal_json_text(*s), journal_json_text(seal_journal(path, journal.size(), "A").value()));
  fs::remove_all(dir);
}

// A journal sealed before its first record (the magic alone) checks as signed, and so do records written
// on after it, told apart (fuzz_verify found it told "altered between byte 8 and byte 8").
TEST(Signing, AJournalSealedWithNoRecordChecksAsSigned) {
  const std::string empty = make_journal(0);
  auto seal = seal_journal_bytes(empty);
  ASSERT_TRUE(seal) << seal.error();
  EXPECT_EQ(seal->records, 0u);
  Finding after;
  const Finding f = check_sealed_journal(*seal, empty, &after);
  EXPECT_TRUE(f.intact) << f.text;
  EXPECT_TRUE(after.intact && after.text.empty()) << after.text;
  const std::string grown = make_journal(3);
  const Finding g = check_sealed_journal(*seal, grown, &after);
  EXPECT_TRUE(g.intact) << g.text;
  EXPECT_TRUE(after.intact) << after.text;
  EXPECT_NE(after.text.find("3 records"), std::string::npos) << after.text;
}

TEST(Signing, SealingRefusesADamagedJournal) {
  std::string journal = make_journal(10);
  EXPECT_TRUE(seal_journal_bytes(journal));
  journal[40] ^= 1;
  EXPECT_FALSE(seal_journal_bytes(journal));
  EXPECT_FALSE(seal_journal_bytes("not a journal at all"));
}

}  // namespace
}  // namespace eboard::journal
