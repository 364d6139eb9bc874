// Writing experiment records so that a full disk (or a kill) never leaves half a record behind
// (issue 16 finding 5: runs.csv ended in a half-written row, summary.csv was empty, and the errors
// said "write failed" without the cause). Every error names the file and the cause from errno
// ("No space left on device", "File too large", ...).
#pragma once

#include <cstddef>
#include <string>

namespace limbic::experiment {

// Replaces `path` with `text` whole or not at all: written to a temporary file beside it, then
// renamed over it. On failure the old file is untouched, the temporary removed, and
// std::runtime_error says "<path>: cannot write N bytes: <cause>".
void WriteFileAtomically(const std::string& path, const std::string& text);

// Appends `text` whole or not at all: a short or failed write is cut back to the file's previous
// size before std::runtime_error ("<path>: cannot append N bytes: <cause>") is thrown.
void AppendWhole(const std::string& path, const std::string& text);

// Cuts everything after the last line break (a row torn by a kill or a full disk before this code
// guarded it). Returns the number of bytes removed (0 for a missing or clean file).
size_t TruncateTornTail(const std::string& path);

}  // namespace limbic::experiment
