// Output files are written whole or not at all.
#pragma once

#include <filesystem>
#include <string_view>

namespace vitals {

// Writes `content` to a temporary file beside `path`, flushes it to disk, and renames it
// over `path`. On failure the temporary file is removed, an existing file at `path` is
// left untouched, and std::runtime_error says which path failed and why.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Throws std::runtime_error unless a file could be created at `path` (its folder exists,
// is a folder and is writable, and `path` is not itself a folder). For failing early,
// before a long run whose results would then be lost.
void check_output_path(const std::filesystem::path& path);

}  // namespace vitals
