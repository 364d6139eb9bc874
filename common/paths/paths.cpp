#include "common/paths/paths.hpp"

#include <cstdlib>
#include <system_error>

namespace limbic::paths {

namespace fs = std::filesystem;

fs::path ExecutableDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

fs::path DataDirFor(const fs::path& executable_dir, const char* env_data_dir) {
  std::error_code ec;
  if (env_data_dir && *env_data_dir) {
    const fs::path dir(env_data_dir);
    if (!fs::is_directory(dir, ec)) {
      throw DataNotFound("LIMBIC_DATA_DIR names no folder: " + dir.string());
    }
    return dir;
  }
  if (executable_dir.empty()) {
    throw DataNotFound(
        "cannot tell where this program is (/proc/self/exe); set LIMBIC_DATA_DIR to limbic's "
        "data folder (<prefix>/share/limbic)");
  }
  const fs::path dir = executable_dir.parent_path() / "share" / "limbic";
  if (!fs::is_directory(dir, ec)) {
    throw DataNotFound("limbic's data folder is not beside this program: " + dir.string() +
                       " does not exist; install limbic (cmake --install) or set LIMBIC_DATA_DIR");
  }
  return dir;
}

fs::path DataDir() { return DataDirFor(ExecutableDir(), std::getenv("LIMBIC_DATA_DIR")); }

fs::path DataPath(std::string_view relative, const char* override_env) {
  if (override_env) {
    if (const char* value = std::getenv(override_env); value && *value) return fs::path(value);
  }
  return DataDir() / fs::path(relative);
}

}  // namespace limbic::paths
