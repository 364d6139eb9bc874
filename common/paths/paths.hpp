#pragma once
// Where limbic's read-only data lives (issue 22 item 3): configurations, robot descriptions, experiment
// definitions, deploy files, schemas. Programs find it relative to their own location, so a build tree and an
// installed prefix work alike and a build can be moved, packaged or shared on a cluster file system.
//
//   <prefix>/bin/limbic-…         the programs
//   <prefix>/share/limbic/…       the data, laid out as in the source tree (configs/robots, experiments,
//                                 deploy, services/affect/config, services/hwio/config, schemas)
//
// In a build tree, <build>/share/limbic is a link to the source tree (made by CMake at configure time), so
// the same relative paths hold there too.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace limbic::paths {

// The data root could not be found; the message says where it looked and how to say where it is.
class DataNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The folder of the running executable (/proc/self/exe); empty if the kernel does not say.
std::filesystem::path ExecutableDir();

// The data root: $LIMBIC_DATA_DIR if set (it must exist), else <executable dir>/../share/limbic.
// Throws DataNotFound naming the folder it tried.
std::filesystem::path DataDir();

// The same, from an explicit executable folder and environment value (for tests; nullptr: unset).
std::filesystem::path DataDirFor(const std::filesystem::path& executable_dir, const char* env_data_dir);

// DataDir() / relative, unless the environment variable `override_env` (e.g. "LIMBIC_ROBOT_DIR") names another
// folder for this one piece of data. `relative` uses '/' as in the source tree ("configs/robots").
std::filesystem::path DataPath(std::string_view relative, const char* override_env = nullptr);

}  // namespace limbic::paths
