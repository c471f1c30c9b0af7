// Every file vitals writes goes through here: whole or not at all, and never through a
// name someone else planted.
//
//   "-", /dev/stdout, /dev/stderr, /dev/fd/N    written to that descriptor (a pipe, a
//                                               terminal, a file the shell opened)
//   an existing device, pipe or socket          written in place, never replaced
//   anything else (a regular file, new or not)  a temporary beside it, created
//       exclusively under an unpredictable name (O_EXCL, which also refuses a planted
//       link), written, flushed to disk, given the mode and owner of the file it
//       replaces where this process may, and renamed over it. A symbolic link to a
//       regular file keeps pointing at it: the file it names is replaced.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

namespace vitals {

// Writes `content` as above. On failure an existing file at `path` is left untouched, no
// temporary file remains, and std::runtime_error says which path failed and why.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// The same for content too large to build whole first: `produce` is called once with a
// function that writes the next piece. If `produce` throws, nothing is replaced (a
// descriptor or device may have been written in part) and the exception passes on.
using WritePiece = std::function<void(std::string_view piece)>;
void write_file_atomically_streamed(const std::filesystem::path& path,
                                    const std::function<void(const WritePiece&)>& produce);

// Whether `path` names standard output ("-", /dev/stdout, /dev/fd/1): a command that
// writes a file there prints its own text to standard error instead, so the file stays
// whole for whoever reads the pipe.
bool is_standard_output(const std::filesystem::path& path);

// Throws std::runtime_error unless `path` could be written as above: not empty, not a
// folder; its folder exists and is writable; the temporary's name fits the file system;
// an existing file may be renamed over (a sticky folder keeps other users' files). For
// failing early, before a long run whose results would then be lost.
void check_output_path(const std::filesystem::path& path);

// Throws std::runtime_error when an output is the same file as an input (the same file
// on disk, however named, or standard output twice), so that no command overwrites what
// it reads.
void check_outputs_are_not_inputs(const std::vector<std::filesystem::path>& outputs,
                                  const std::vector<std::filesystem::path>& inputs);

}  // namespace vitals
