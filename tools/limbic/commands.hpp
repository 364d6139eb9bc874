// The `limbic` subcommands. Each takes the arguments after its name and returns the exit code.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace limbic::cli {

using Args = std::vector<std::string>;

int TopicsCommand(const Args& args);
int NodesCommand(const Args& args);
int EchoCommand(const Args& args);
int HzCommand(const Args& args);
int PubCommand(const Args& args);
int ParamCommand(const Args& args);
int LaunchCommand(const Args& args);
int InjectCommand(const Args& args);
int KeysCommand(const Args& args);
int RecordCommand(const Args& args);  // bag.cpp
int PlayCommand(const Args& args);
int BagCommand(const Args& args);
int TopicCommand(const Args& args);  // inspect.cpp: topic info
int InterfaceCommand(const Args& args);
// param list|dump|load (`verb`; args include it as the first positional).
int ParamListDumpLoad(const std::string& verb, const Args& args);

// Where `limbic interface show` reads the .fbs schemas: $LIMBIC_SCHEMA_DIR, else the data folder's
// messages/ (common/paths; the one place that knows). Throws paths::DataNotFound.
std::filesystem::path SchemaDirectory();

// Small argument reader shared by the subcommands: flags with values, switches and positionals.
class ArgReader {
 public:
  ArgReader(const Args& args, std::vector<std::string> flags_with_values, std::vector<std::string> switches);
  bool Has(const std::string& flag) const;
  std::string Get(const std::string& flag, const std::string& fallback = "") const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::vector<std::pair<std::string, std::string>> values_;
  std::vector<std::string> positional_;
};

}  // namespace limbic::cli
