#include "tools/experiment/durable_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace limbic::experiment {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& what, int error) {
  throw std::runtime_error(path + ": " + what + ": " + std::strerror(error));
}

// Writes all of `text`; returns 0 or the errno of the failure (a short write that makes no progress
// is ENOSPC, as the kernel reports on the next call).
int WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENOSPC;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

void WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp-" + std::to_string(getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Fail(path, "cannot create " + temporary, errno);
  int error = WriteAll(fd, text);
  if (close(fd) != 0 && error == 0) error = errno;  // NFS and friends report late
  if (error == 0 && rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    unlink(temporary.c_str());
    Fail(path, "cannot write " + std::to_string(text.size()) + " bytes", error);
  }
}

void AppendWhole(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) Fail(path, "cannot open for appending", errno);
  struct stat before {};
  if (fstat(fd, &before) != 0) {
    const int error = errno;
    close(fd);
    Fail(path, "cannot stat", error);
  }
  int error = WriteAll(fd, text);
  if (error != 0) {
    // Whole or nothing: what went in of this append comes out again. Truncating never needs space.
    if (ftruncate(fd, before.st_size) != 0) {
      close(fd);
      Fail(path,
           "cannot append " + std::to_string(text.size()) + " bytes (" + std::strerror(error) +
               ") nor cut the partial write back",
           errno);
    }
  }
  if (close(fd) != 0 && error == 0) error = errno;
  if (error != 0) Fail(path, "cannot append " + std::to_string(text.size()) + " bytes", error);
}

size_t TruncateTornTail(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return 0;  // missing: nothing torn
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size == 0) {
    close(fd);
    return 0;
  }
  // Back from the end, a block at a time, to the last line break.
  off_t keep = 0;
  char block[4096];
  for (off_t end = st.st_size; end > 0 && keep == 0;) {
    const off_t start = end > static_cast<off_t>(sizeof(block)) ? end - static_cast<off_t>(sizeof(block)) : 0;
    const ssize_t n = pread(fd, block, static_cast<size_t>(end - start), start);
    if (n <= 0) break;
    for (ssize_t i = n - 1; i >= 0; --i) {
      if (block[i] == '\n') {
        keep = start + i + 1;
        break;
      }
    }
    end = start;
  }
  const size_t removed = static_cast<size_t>(st.st_size - keep);
  if (removed > 0 && ftruncate(fd, keep) != 0) {
    const int error = errno;
    close(fd);
    Fail(path, "cannot cut a torn last row", error);
  }
  close(fd);
  return removed;
}

}  // namespace limbic::experiment
