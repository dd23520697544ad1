// Files that are either the old version or the new one, never half written: write a temporary file in
// the same directory, fsync it, rename it over the target, fsync the directory.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace eboard::outputs {

tl::expected<void, std::string> write_file_atomic(const std::filesystem::path& path,
                                                  std::string_view content);

}  // namespace eboard::outputs
