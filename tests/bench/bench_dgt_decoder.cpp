// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// DGT decoder throughput on the real captures (read from ../shared at run time; skipped when absent), plus a
// synthetic stream so that there is always a figure. Reports bytes/s and the time per decoded message.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "drivers/base64.hpp"
#include "drivers/dgt/bus.hpp"
#include "drivers/dgt/decoder.hpp"

namespace {

namespace dgt = eboard::drivers::dgt;
using ByteVector = std::vector<std::uint8_t>;

// Both arnsholt captures, each serial read appended in order.
ByteVector load_real_captures() {
  ByteVector all;
  const auto dir = std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "dgt";
  for (const char* name : {"arnsholt-dgtdriver_1.inbytes", "arnsholt-dgtdriver_johan.inbytes"}) {
    std::ifstream in(dir / name);
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      if (auto bytes = eboard::drivers::decode_base64(line))
        all.insert(all.end(), bytes->begin(), bytes->end());
    }
  }
  return all;
}

const ByteVector& real_captures() {
  static const ByteVector bytes = load_real_captures();
  return bytes;
}

// A stream shaped like a game: mostly clock readings and field updates.
const ByteVector& synthetic_stream() {
  static const ByteVector bytes = [] {
    ByteVector s;
    for (int i = 0; i < 2000; ++i) {
      const auto sec = static_cast<std::uint8_t>((i % 6) << 4 | (i % 10));
      const ByteVector bw{0x8D, 0x00, 0x0A, 0x20, 0x03, sec, 0x20, 0x02, 0x15, 0x13};
      const ByteVector fu{0x8E, 0x00, 0x05, static_cast<std::uint8_t>(i % 64),
                          static_cast<std::uint8_t>(i % 13)};
      s.insert(s.end(), bw.begin(), bw.end());
      if (i % 3 == 0) s.insert(s.end(), fu.begin(), fu.end());
    }
    return s;
  }();
  return bytes;
}

void run_decoder(benchmark::State& state, const ByteVector& bytes, std::size_t chunk) {
  std::vector<dgt::Message> out;
  out.reserve(4096);
  std::size_t messages = 0;
  for (auto _ : state) {
    dgt::Decoder d;
    out.clear();
    for (std::size_t i = 0; i < bytes.size(); i += chunk) {
      d.feed(std::span(bytes).subspan(i, std::min(chunk, bytes.size() - i)), out);
    }
    messages = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * messages));
  state.counters["messages"] = static_cast<double>(messages);
  // Seconds per decoded message (shown as us/ns by the counter flags).
  state.counters["time_per_message"] =
      benchmark::Counter(static_cast<double>(state.iterations() * messages),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_RealCaptures(benchmark::State& state) {
  if (real_captures().empty()) {
    state.SkipWithError("real captures not found in EBOARD_SHARED_DIR/corpora/dgt");
    for (auto _ : state) {}
    return;
  }
  run_decoder(state, real_captures(), static_cast<std::size_t>(state.range(0)));
}
BENCHMARK(BM_RealCaptures)->Arg(1)->Arg(16)->Arg(1 << 20);

void BM_SyntheticStream(benchmark::State& state) {
  run_decoder(state, synthetic_stream(), static_cast<std::size_t>(state.range(0)));
}
BENCHMARK(BM_SyntheticStream)->Arg(1)->Arg(1 << 20);

void BM_BusDecoder(benchmark::State& state) {
  ByteVector stream;
  for (std::uint16_t a = 0; a < 200; ++a) {
    const ByteVector data{0x40, static_cast<std::uint8_t>(a % 64), 0x51, 0x24};
    const auto r = dgt::encode_bus_reply(0x85, a, data);
    stream.insert(stream.end(), r.begin(), r.end());
  }
  std::vector<dgt::BusFrame> out;
  for (auto _ : state) {
    dgt::BusDecoder d;
    out.clear();
    d.feed(stream, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream.size()));
}
BENCHMARK(BM_BusDecoder);

}  // namespace

BENCHMARK_MAIN();
