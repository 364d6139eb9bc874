// Writes the seed corpora of the fuzz targets: a few valid messages of every registered type, built
// from schema-generated JSON through the real codec. Usage: fuzz_seed_gen OUT_DIR (creates
// OUT_DIR/{message_verify,bus_frames,json_codec,hostile_values,mcap_reader}/). mcap_reader: small
// files mcap::Writer writes (each compression, several chunks, a metadata-free summary), and the
// same cut short (no footer; inside a chunk) so the fuzzer starts from both kinds of damage.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/mcap/writer.hpp"
#include "messages/messages.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tools/limbic/json_codec.hpp"

namespace {

void Write(const std::filesystem::path& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path root = argv[1];
  const fs::path verify_dir = root / "message_verify";
  const fs::path frames_dir = root / "bus_frames";
  const fs::path json_dir = root / "json_codec";
  try {
    for (const auto& dir : {verify_dir, frames_dir, json_dir}) fs::create_directories(dir);
    limbic::cli::JsonCodec codec;
    const auto types = limbic::messages::AllTypes();
    int written = 0;
    for (size_t index = 0; index < types.size(); ++index) {
      const auto& type = types[index];
      const std::string id = type.identifier;
      struct Variant {
        const char* name;
        std::string json;
      };
      const std::vector<Variant> variants{
          {"empty", "{}"},
          {"full", limbic::fuzz::FullJson(type, /*with_header=*/true, /*latched=*/false)},
          {"latched", limbic::fuzz::FullJson(type, /*with_header=*/true, /*latched=*/true)},
      };
      for (const auto& v : variants) {
        const std::vector<uint8_t> bytes = codec.FromJson(type, v.json, 1, "seed", 7, false);
        const std::string stem = id + "_" + v.name;
        Write(verify_dir / (stem + ".bin"), bytes.data(), bytes.size());
        const std::string topic = "fuzz/" + id;
        const std::vector<uint8_t> topic_bytes(topic.begin(), topic.end());
        const auto framed = limbic::fuzz::EncodeFrames({topic_bytes, bytes}, /*subscribe=*/v.name[0] == 'l');
        Write(frames_dir / (stem + ".frames"), framed.data(), framed.size());
        std::string json_input(1, static_cast<char>(index));
        json_input += v.json;
        Write(json_dir / (stem + ".json"), json_input.data(), json_input.size());
        ++written;
      }
    }
    // hostile_values: (type, variant) pairs, no mutation: every hostile variant of every type once.
    const fs::path hostile_dir = root / "hostile_values";
    fs::create_directories(hostile_dir);
    for (int type_index = 0; type_index < 32; ++type_index) {
      for (int variant = 0; variant < 6; ++variant) {
        const uint8_t seed[3] = {static_cast<uint8_t>(type_index), static_cast<uint8_t>(variant), 0};
        Write(hostile_dir / ("h" + std::to_string(type_index) + "_" + std::to_string(variant) + ".bin"), seed, 3);
      }
    }
    // Framing oddities for the bus: one frame, three frames, an empty topic.
    const std::vector<uint8_t> topic{'a', '/', 'b'};
    const auto one = limbic::fuzz::EncodeFrames({topic}, false);
    Write(frames_dir / "one_frame.frames", one.data(), one.size());
    const auto three = limbic::fuzz::EncodeFrames({topic, {1, 2, 3}, {4}}, false);
    Write(frames_dir / "three_frames.frames", three.data(), three.size());
    // mcap_reader: what the writer makes, kept small (a short schema, short payloads) so the fuzzer
    // spends its time on structure rather than on bulk bytes.
    const fs::path mcap_dir = root / "mcap_reader";
    fs::create_directories(mcap_dir);
    for (const auto compression :
         {limbic::mcap::Compression::kNone, limbic::mcap::Compression::kZstd, limbic::mcap::Compression::kLz4}) {
      const std::string name =
          std::string("w_") +
          (compression == limbic::mcap::Compression::kNone ? "none" : limbic::mcap::CompressionName(compression));
      const fs::path path = mcap_dir / (name + ".mcap");
      {
        limbic::mcap::Writer w(path.string(), {.compression = compression, .chunk_size = 200});
        const std::vector<uint8_t> schema_bytes{'b', 'f', 'b', 's', 0, 1, 2, 3};
        const uint16_t schema = w.AddSchema("limbic.msg.Odometry", "flatbuffer", schema_bytes);
        const uint16_t odom = w.AddChannel(schema, "r1/odom", "flatbuffer", {{"latched", "false"}});
        const uint16_t raw = w.AddChannel(0, "r1/raw", "");
        for (uint32_t i = 0; i < 12; ++i) {
          std::vector<uint8_t> payload(8 + i * 4, static_cast<uint8_t>(i));
          w.Write({.channel_id = i % 3 == 0 ? raw : odom,
                   .sequence = i,
                   .log_time = 1000 + i,
                   .publish_time = 900 + i,
                   .data = payload});
        }
        w.Close();
      }
      std::ifstream in(path, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      Write(mcap_dir / (name + "_cut_footer.mcap"), bytes.data(), bytes.size() - 30);
      Write(mcap_dir / (name + "_cut_half.mcap"), bytes.data(), bytes.size() / 2);
    }
    std::printf("fuzz_seed_gen: %d seeds per target in %s\n", written, root.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_seed_gen: %s\n", e.what());
    return 1;
  }
  return 0;
}
