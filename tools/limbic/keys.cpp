// `limbic keys generate`: ZeroMQ CURVE key pairs and the key files limbic-bus (--curve-server) and the
// services (--curve-keys) read. The first NAME is the server (the broker); every other NAME is a client.
#include <sys/stat.h>
#include <zmq.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tools/limbic/commands.hpp"

namespace limbic::cli {
namespace {

struct KeyPair {
  std::string public_key;  // Z85, 40 characters
  std::string secret_key;
};

KeyPair Generate() {
  char pub[41] = {};
  char sec[41] = {};
  if (zmq_curve_keypair(pub, sec) != 0) {
    throw std::runtime_error("zmq_curve_keypair failed (is libzmq built with CURVE support?)");
  }
  return {pub, sec};
}

// Writes `text` to `path` with `mode` (created with it, so a secret is never readable by others).
void WriteFile(const std::filesystem::path& path, const std::string& text, mode_t mode) {
  std::filesystem::remove(path);
  const mode_t old = umask(0077 & ~mode & 0777);
  std::ofstream out(path);
  umask(old);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << text;
  out.close();
  if (chmod(path.c_str(), mode) != 0) throw std::runtime_error("cannot set the mode of " + path.string());
}

bool ValidName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  }
  return name != "." && name != "..";
}

}  // namespace

int KeysCommand(const Args& args) {
  ArgReader reader(args, {"--out"}, {"--help"});
  const auto& pos = reader.positional();
  if (reader.Has("--help") || pos.size() < 2 || pos[0] != "generate" || reader.Get("--out").empty()) {
    std::cout << R"(usage: limbic keys generate --out DIR SERVER CLIENT...

Makes one ZeroMQ CURVE key pair per NAME: DIR/NAME.key (secret, mode 0600) and DIR/NAME.pub. The first
NAME is the broker's; the others are clients. It also writes
  DIR/SERVER.server.yaml   for limbic-bus --curve-server (server_secret, allowed_clients: every client)
  DIR/CLIENT.client.yaml   for a service's --curve-keys (server_public, client_public, client_secret)
Both hold secrets (mode 0600). Example:
  limbic keys generate --out /etc/limbic/keys bus robot workstation
)";
    return reader.Has("--help") ? 0 : 2;
  }
  const std::vector<std::string> names(pos.begin() + 1, pos.end());
  for (const auto& n : names) {
    if (!ValidName(n)) {
      std::cerr << "limbic keys: '" << n << "' is not a valid key name (letters, digits, - _ .)\n";
      return 2;
    }
  }
  const std::filesystem::path dir = reader.Get("--out");
  std::filesystem::create_directories(dir);
  std::vector<KeyPair> keys;
  for (const auto& n : names) {
    keys.push_back(Generate());
    WriteFile(dir / (n + ".key"), keys.back().secret_key + "\n", 0600);
    WriteFile(dir / (n + ".pub"), keys.back().public_key + "\n", 0644);
  }
  std::string server = "# limbic-bus --curve-server: the broker's secret key and the admitted client public keys\n";
  server += "server_secret: \"" + keys[0].secret_key + "\"\nallowed_clients:\n";
  for (size_t i = 1; i < keys.size(); ++i) server += "  - \"" + keys[i].public_key + "\"  # " + names[i] + "\n";
  if (keys.size() == 1) server += "  []\n";
  WriteFile(dir / (names[0] + ".server.yaml"),
            keys.size() == 1 ? "server_secret: \"" + keys[0].secret_key + "\"\nallowed_clients: []\n" : server, 0600);
  for (size_t i = 1; i < keys.size(); ++i) {
    std::string client = "# --curve-keys for the services using the key '" + names[i] + "'\n";
    client += "server_public: \"" + keys[0].public_key + "\"\n";
    client += "client_public: \"" + keys[i].public_key + "\"\n";
    client += "client_secret: \"" + keys[i].secret_key + "\"\n";
    WriteFile(dir / (names[i] + ".client.yaml"), client, 0600);
  }
  std::cout << "wrote " << names.size() << " key pair(s) to " << dir.string() << ": " << names[0]
            << ".server.yaml for limbic-bus";
  if (names.size() > 1) std::cout << ", NAME.client.yaml for the services";
  std::cout << "\n";
  return 0;
}

}  // namespace limbic::cli
