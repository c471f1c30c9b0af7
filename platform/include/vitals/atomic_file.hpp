// Every file vitals writes goes through here: whole or not at all, and never through a
// name someone else planted.
//
//   "-", /dev/stdout, /dev/stderr, /dev/fd/N    written to that descriptor (a pipe, a
//                                               terminal, a file the shell opened)
//   an existing device, pipe or socket          written in place, never replaced
//   anything else (a regular file, new or not)  a temporary beside it, created
//       exclusively under an unpredictable name (O_EXCL | O_NOFOLLOW, which also
//       refuses a planted link), written, flushed to disk, given the mode and owner of
//       the file it replaces where this process may (not those of another user's file
//       in a folder anyone may write: root's output stays root's), and renamed over it.
//       A symbolic link to a regular file keeps pointing at it: the file it names is
//       replaced.
//
// Links are followed only as the kernel's protected_symlinks rule would follow them,
// whatever that setting is: a link in a sticky folder that anyone may write (/tmp) only
// when its owner is this process's user or the folder's owner. Any other link there is
// refused with a message that names it.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct stat;

namespace vitals {

using WritePiece = std::function<void(std::string_view piece)>;

// An output path checked once, before the work whose result it receives: relative paths are
// resolved now (a later chdir changes nothing), the folder is opened and held, and the final
// rename goes into that folder (renameat), never through a link planted in between.
// Descriptors ("-", /dev/stdout, /dev/fd/N), devices, pipes are treated as write_file_atomically
// treats them. Throws std::runtime_error as check_output_path does.
//
// Copies share nothing: a copy holds its own descriptor of the same folder.
class OutputFile {
public:
    explicit OutputFile(const std::filesystem::path& path);
    OutputFile(const OutputFile& other);
    OutputFile(OutputFile&& other) noexcept;
    OutputFile& operator=(OutputFile other) noexcept;
    ~OutputFile();

    const std::filesystem::path& path() const;       // as given, for messages
    void write(std::string_view content) const;      // whole or not at all, as write_file_atomically
    void write_streamed(const std::function<void(const WritePiece&)>& produce) const;
    // The same held folder, the name with `.tag` before its extension ("out.json", "partial" ->
    // "out.partial.json"); descriptors and devices: the same output. Whatever is at the
    // tagged name when it is written (a file, a link) is replaced, never followed.
    OutputFile tagged(const std::string& tag) const;
    // For a file changed in place rather than replaced (a SQLite database): the checked
    // entry's path through the held folder's own path as the kernel names it, with no
    // link on the way; open it with O_NOFOLLOW (a link planted at the name since the
    // check is then refused). Throws std::runtime_error for a descriptor, device or pipe,
    // for a file replaced since the check, for another user's file in a sticky folder
    // anyone may write (even as root: the protected_regular rule), and for a file any
    // user may write.
    std::string in_place_path() const;

private:
    enum class Kind { descriptor, in_place, replaced };
    OutputFile() = default;
    void swap(OutputFile& other) noexcept;
    void settle(const struct ::stat* entry, bool tagged);  // what is at name_ (null: nothing)
    void write_in_place(const std::function<void(const WritePiece&)>& produce) const;
    void write_replacing(const std::function<void(const WritePiece&)>& produce) const;

    std::filesystem::path given_;
    Kind kind_ = Kind::replaced;
    int descriptor_ = -1;        // Kind::descriptor: the descriptor written to
    int folder_ = -1;            // otherwise: the held folder (O_PATH), owned by this object
    std::string folder_shown_;   // that folder as the path reached it, for messages
    std::string name_;           // the entry in it
    bool replaces_ = false;      // a regular file was there when checked: its identity
    unsigned long long replaced_device_ = 0, replaced_inode_ = 0;
};

// Writes `content` as above. On failure an existing file at `path` is left untouched, no
// temporary file remains, and std::runtime_error says which path failed and why.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// The same for content too large to build whole first: `produce` is called once with a
// function that writes the next piece. If `produce` throws, nothing is replaced (a
// descriptor or device may have been written in part) and the exception passes on.
void write_file_atomically_streamed(const std::filesystem::path& path,
                                    const std::function<void(const WritePiece&)>& produce);

// Whether `path` names standard output ("-", /dev/stdout, /dev/fd/1): a command that
// writes a file there prints its own text to standard error instead, so the file stays
// whole for whoever reads the pipe.
bool is_standard_output(const std::filesystem::path& path);

// Writes `content` as a new file in `folder` under the first of name(0), name(1), ...
// (up to `most_names` names) that nothing has, never replacing a file: whole or not at
// all (a temporary created exclusively, flushed, then linked to its name; renameat2 with
// RENAME_NOREPLACE where the file system has no hard links). For writers that must never
// lose another's file (two trace writers of one worker name). Returns the path written,
// or nullopt when every name was taken; throws std::runtime_error when it cannot write.
std::optional<std::filesystem::path> write_new_file(const std::filesystem::path& folder,
                                                    const std::function<std::string(int attempt)>& name,
                                                    std::string_view content, int most_names);

// Throws std::runtime_error unless `path` could be written as above: not empty, not a
// folder; its folder exists and is writable; the temporary's name fits the file system;
// an existing file may be renamed over (a sticky folder keeps other users' files); no
// link on the way that the rule above refuses. For failing early, before a long run
// whose results would then be lost (OutputFile also holds what it checked).
void check_output_path(const std::filesystem::path& path);

// Throws std::runtime_error when an output is the same file as an input (the same file
// on disk, however named, or standard output twice), so that no command overwrites what
// it reads.
void check_outputs_are_not_inputs(const std::vector<std::filesystem::path>& outputs,
                                  const std::vector<std::filesystem::path>& inputs);

}  // namespace vitals
